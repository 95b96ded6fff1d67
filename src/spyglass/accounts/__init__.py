"""A household: accounts, roles, per-person permissions and approval by a parent."""
