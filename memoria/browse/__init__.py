"""Reads behind the explorer's pages and graph view: node cards, a node's neighbourhood, entity/episode/community
pages. Pure Python + parameterised Cypher; no HTTP here.
"""
