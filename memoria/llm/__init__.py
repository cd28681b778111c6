"""The optional LLM: an OpenAI-compatible chat client, one prompt module per task, and extractors built on them."""
