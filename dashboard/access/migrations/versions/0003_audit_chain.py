"""audit_events.digest and audit_head: the audit trail as a hash chain (dashboard/access/audit_chain.py)

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("audit_events") as batch:
        batch.add_column(sa.Column("digest", sa.String(64), nullable=True))
    op.create_table(
        "audit_head",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("last_event_id", sa.Integer, nullable=False, server_default="0"),
        sa.Column("digest", sa.String(64), nullable=False),
    )
    from dashboard.access.audit_chain import relink_all

    relink_all(op.get_bind())  # the events recorded before the chain existed are its first links


def downgrade() -> None:
    op.drop_table("audit_head")
    with op.batch_alter_table("audit_events") as batch:
        batch.drop_column("digest")
