"""The optional LLM: an OpenAI-compatible chat client, one prompt module per task, and the step mode enum; the
steps built on them live beside the steps they implement (memoria/ingest/llm_*.py, memoria/ppr/llm_steps.py)."""
