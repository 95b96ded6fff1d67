"""Conversation turns: the model proposes, the executor decides, the owner approves."""
