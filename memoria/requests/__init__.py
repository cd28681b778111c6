"""What every request is made of: the domain's words as annotated pydantic types with the one adapter to InvalidInput
(vocabulary.py), query-string values (query.py) and a request's moment (moment.py). Every layer above the graph builds
its request models on them, so a node id, a group or a timestamp is checked by one rule everywhere.
"""
