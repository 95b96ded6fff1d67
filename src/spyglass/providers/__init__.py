"""What search and fetch providers share: weighted routing, one bounded HTTP exchange, and
the check that each configured provider has what it needs before anyone is asked."""
