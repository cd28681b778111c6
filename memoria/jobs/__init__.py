"""Background jobs for long work: community builds, imports and exports of big groups, reindexing (docs/api.md, "Jobs").

A job is a row of the Django database (models.Job) run by a small thread pool inside the server process
(runner.py); what each kind does is in work.py, the requests that start them in inputs.py, and the one entry for
every face (REST, the explorer page) in service.py.
"""
