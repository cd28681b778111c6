"""The graph index of RFD 0003: typed, weighted edges between a group's memories, asked for by relation, neighbour
and walk (service.py), the requests its edge writes take (request.py), and MAIG, its binary save format (maig.py).
"""
