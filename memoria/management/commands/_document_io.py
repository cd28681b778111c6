"""Shared by the commands that write graph documents: a progress bar and one way to report the result."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from memoria.errors import GraphUnavailable, InvalidInput
from memoria.interchange.document import GraphDocument
from memoria.interchange.importer import ImportReport, graph_document_import, import_size


def write_document(command: BaseCommand, *, document: GraphDocument, group: str, quiet: bool = False) -> ImportReport:
    """Import with a progress bar; engine errors become CommandError with their full message."""
    with tqdm(
        total=import_size(document), unit="row", desc=f"import → {group}", disable=quiet, file=command.stderr._out
    ) as bar:
        try:
            report = graph_document_import(document=document, group=group, progress=bar.update)
        except (InvalidInput, GraphUnavailable) as error:
            raise CommandError(str(error)) from error
    command.stdout.write(
        f"group {group}: {report.nodes_created} node(s) created, {report.nodes_updated} updated; "
        f"{report.edges_created} edge(s) created, {report.edges_updated} updated; "
        f"{report.mentions} mention(s), {report.memberships} membership(s); "
        f"{report.round_trips} round trip(s) in {report.seconds:.2f} s"
    )
    return report
