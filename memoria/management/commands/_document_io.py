"""Shared by the commands that write graph documents: progress bars, embedding after the import, one report."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from memoria.accounts.roles import check_group_name
from memoria.errors import GraphUnavailable, InvalidInput
from memoria.interchange.document import GraphDocument
from memoria.interchange.importer import ImportReport, graph_document_import, import_size
from memoria.reindex import reindex_after_write


def add_document_arguments(parser: CommandParser) -> None:
    """The options every document-writing command takes besides its input."""
    parser.add_argument(
        "--no-reindex",
        dest="reindex",
        action="store_false",
        help="do not embed what was written now; `reindex --group G` does it later (e.g. after several bulk loads)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bars")


def checked_group(group: str) -> str:
    """The --group value, or a CommandError saying what a group name may hold."""
    try:
        check_group_name(group)
    except ValueError as error:
        raise CommandError(str(error)) from error
    return group


def write_document(
    command: BaseCommand,
    *,
    document: GraphDocument,
    group: str,
    reindex: bool = True,
    quiet: bool = False,
    source: str | None = None,
) -> ImportReport:
    """Import with a progress bar, then embed what lacks a vector; engine errors become CommandError naming `source`.

    A failed embedding is a warning, not an error: the import has committed and `reindex` finishes the work.
    """
    with tqdm(
        total=import_size(document), unit="row", desc=f"import → {group}", disable=quiet, file=command.stderr._out
    ) as bar:
        try:
            report = graph_document_import(document=document, group=group, progress=bar.update)
        except (InvalidInput, GraphUnavailable) as error:
            raise CommandError(f"{source}: {error}" if source else str(error)) from error
    command.stdout.write(
        f"group {group}: {report.nodes_created} node(s) created, {report.nodes_updated} updated; "
        f"{report.edges_created} edge(s) created, {report.edges_updated} updated; "
        f"{report.mentions} mention(s), {report.memberships} membership(s); {report.texts_changed} text(s) "
        f"changed; {report.round_trips} round trip(s) in {report.seconds:.2f} s"
    )
    later = f"`python manage.py reindex --group {group}` embeds them"
    if not reindex:
        command.stdout.write(f"vectors not computed (--no-reindex): {later}")
        return report
    with tqdm(unit=" text", desc=f"embed → {group}", disable=quiet, file=command.stderr._out) as bar:
        outcome = reindex_after_write(group=group, ids=report.touched_ids, progress=bar.update)
    if outcome.error:
        left = "an unknown number of" if outcome.left is None else str(outcome.left)
        command.stderr.write(
            command.style.WARNING(
                f"the import is stored, but embedding failed after {outcome.embedded} text(s): {outcome.error}; "
                f"{left} written text(s) have no vector yet: {later}"
            )
        )
    else:
        command.stdout.write(f"embedded {outcome.embedded} text(s) in {outcome.seconds:.2f} s")
    return report
