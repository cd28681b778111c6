"""The MCP face of Memoria: tools and resources for agents, thin over the services the REST views call."""
