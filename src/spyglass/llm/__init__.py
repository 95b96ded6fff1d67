"""Talking to the owner's OpenAI-compatible model server (llama-server, Ollama, vLLM, ...)."""
