"""login_failures.device: a failed sign-in from a browser that holds a device cookie for the account is counted
for that device alone (dashboard/access/limiter.py)

Revision ID: 0004
Revises: 0003
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("login_failures") as batch:
        batch.add_column(sa.Column("device", sa.String(32), nullable=True))
        batch.create_index("ix_login_failures_device", ["device"])


def downgrade() -> None:
    with op.batch_alter_table("login_failures") as batch:
        batch.drop_index("ix_login_failures_device")
        batch.drop_column("device")
