"""known_clients: the clients (addresses) an account signed in from, so that a new browser there is limited as a
device of its own (dashboard/access/limiter.py)

Revision ID: 0007
Revises: 0006
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "known_clients",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("account", sa.String(64), nullable=False),
        sa.Column("client", sa.String(64), nullable=False),
        sa.Column("last_success", sa.DateTime, nullable=False),
        sa.UniqueConstraint("account", "client"),
    )
    op.create_index("ix_known_clients_account", "known_clients", ["account"])


def downgrade() -> None:
    op.drop_index("ix_known_clients_account", "known_clients")
    op.drop_table("known_clients")
