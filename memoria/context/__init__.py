"""A prompt-ready context block for a query: facts that hold, the entities involved, the relevant episodes."""
