"""`ensure_login`: make sure the local admin login exists and say how to use it."""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from memoria.accounts.roles import Role
from memoria.accounts.services import user_grant
from memoria.config import local_secret


class Command(BaseCommand):
    help = "Create the local admin user (password kept in var/secrets.json) if it does not exist."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--username", default="admin")

    def handle(self, *args: object, username: str, **options: object) -> None:
        from django.contrib.auth import get_user_model

        password = local_secret(settings.SECRETS_FILE, f"{username}_password", length=12)
        user = get_user_model().objects.filter(username=username).first()
        if user is None or not user.check_password(password):
            # Only (re)set the password we generated; a password the admin changed is left alone.
            if user is None:
                user_grant(username=username, role=Role.ADMIN, password=password)
            else:
                user_grant(username=username, role=Role.ADMIN)
                password = "(the password you set)"  # noqa: S105 - a message, not a secret
        url = f"http://{settings.MEMORIA_HOST}:{settings.MEMORIA_PORT}/"
        self.stdout.write(f"Open {url} and sign in as {username!r} with password {password}")
