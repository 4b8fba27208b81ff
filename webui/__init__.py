"""The Flask dashboard and its JSON/SSE API."""
