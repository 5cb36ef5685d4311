from ingest.database import run_migrations_in_env
from ingest.models import Base

run_migrations_in_env(Base.metadata)
