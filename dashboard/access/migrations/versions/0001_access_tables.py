"""users, projects, memberships, sessions, audit_events, setup_tokens, login_failures

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(64), nullable=False, unique=True),
        sa.Column("display_name", sa.String(200), nullable=False, server_default=""),
        sa.Column("password_hash", sa.String(255), nullable=True),
        sa.Column("oidc_subject", sa.String(255), nullable=True, unique=True),
        sa.Column("disabled", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("created", sa.DateTime, nullable=False),
    )
    op.create_table(
        "projects",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(100), nullable=False, unique=True),
        sa.Column("created", sa.DateTime, nullable=False),
    )
    op.create_table(
        "memberships",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("project_id", sa.Integer, sa.ForeignKey("projects.id", ondelete="CASCADE"), nullable=False,
                  index=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False, index=True),
        sa.Column("role", sa.String(16), nullable=False),
        sa.UniqueConstraint("project_id", "user_id"),
        sa.CheckConstraint("role IN ('viewer', 'editor', 'owner')", name="ck_memberships_role"),
    )
    op.create_table(
        "sessions",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("digest", sa.String(64), nullable=False, unique=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False, index=True),
        sa.Column("created", sa.DateTime, nullable=False),
        sa.Column("expires", sa.DateTime, nullable=False),
        sa.Column("revoked", sa.DateTime, nullable=True),
        sa.Column("address", sa.String(64), nullable=False, server_default=""),
    )
    op.create_table(
        "audit_events",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("at", sa.DateTime, nullable=False, index=True),
        sa.Column("user_name", sa.String(64), nullable=True),
        sa.Column("address", sa.String(64), nullable=False, server_default="-"),
        sa.Column("action", sa.String(64), nullable=False, index=True),
        sa.Column("detail", sa.JSON, nullable=False),
    )
    op.create_table(
        "setup_tokens",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("digest", sa.String(64), nullable=False, unique=True),
        sa.Column("created", sa.DateTime, nullable=False),
        sa.Column("expires", sa.DateTime, nullable=False),
        sa.Column("used", sa.DateTime, nullable=True),
    )
    op.create_table(
        "login_failures",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("at", sa.DateTime, nullable=False, index=True),
        sa.Column("account", sa.String(64), nullable=False, index=True),
        sa.Column("address", sa.String(64), nullable=False, index=True),
    )


def downgrade() -> None:
    for table in ("login_failures", "setup_tokens", "audit_events", "sessions", "memberships", "projects", "users"):
        op.drop_table(table)
