"""Graph documents in and out of the store: the format's records and parser, the importer and the exporter."""
