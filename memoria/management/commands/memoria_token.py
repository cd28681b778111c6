"""`memoria_token --user U --role R [--group G ...]`: print an API token, creating the user if needed."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from memoria.accounts.roles import Role
from memoria.accounts.services import token_for, user_grant


class Command(BaseCommand):
    help = "Create or update a user with a role and group access, and print its API token."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--user", required=True)
        parser.add_argument("--role", required=True, choices=[role.value for role in Role])
        parser.add_argument("--group", action="append", default=[], help="memory group the user may see (repeat)")

    def handle(self, *args: object, user: str, role: str, group: list[str], **options: object) -> None:
        if not user.strip() or len(user) > 150:
            raise CommandError("--user must be 1–150 characters")
        try:
            account = user_grant(username=user, role=Role(role), groups=group)
        except ValueError as error:
            raise CommandError(str(error)) from error
        if not group and role != Role.ADMIN:
            self.stderr.write(f"note: {user} has no group access yet; add --group NAME to grant some")
        self.stdout.write(token_for(user=account))
