CREATE TABLE cairn_admission_keys (
  scope TEXT NOT NULL,
  admission_key TEXT NOT NULL,
  lim INTEGER NOT NULL,
  next_seq INTEGER NOT NULL,
  PRIMARY KEY (scope, admission_key)
) WITHOUT ROWID;

CREATE TABLE cairn_checkpoints (
  run_key INTEGER NOT NULL REFERENCES cairn_runs (key) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  name TEXT NOT NULL,
  kind TEXT NOT NULL,
  status TEXT NOT NULL,
  attempts INTEGER NOT NULL,
  delivery_order INTEGER,
  output TEXT,
  error TEXT,
  wake_at INTEGER,
  started_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL, input TEXT, worker TEXT,
  PRIMARY KEY (run_key, seq)
) STRICT;

CREATE TABLE cairn_event_batch_items (
  workflow TEXT NOT NULL,
  batch_key TEXT NOT NULL,
  batch_id TEXT NOT NULL,
  item_no INTEGER NOT NULL,
  event_id TEXT NOT NULL,
  payload TEXT NOT NULL,
  PRIMARY KEY (workflow, batch_key, batch_id, item_no)
) STRICT;

CREATE TABLE cairn_event_batches (
  workflow TEXT NOT NULL,
  batch_key TEXT NOT NULL,
  id TEXT NOT NULL,
  mode TEXT NOT NULL CHECK (mode IN ('debounce', 'batch')),
  first_at INTEGER NOT NULL,
  due_at INTEGER NOT NULL,
  size INTEGER NOT NULL,
  is_open INTEGER CHECK (is_open = 1),
  lease_owner TEXT,
  lease_until INTEGER,
  PRIMARY KEY (workflow, batch_key, id)
) STRICT, WITHOUT ROWID;

CREATE TABLE cairn_event_waits (
  run_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  name TEXT NOT NULL,
  match_json TEXT,
  started_at INTEGER NOT NULL,
  PRIMARY KEY (run_id, seq)
) STRICT;

CREATE TABLE cairn_events (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  payload TEXT NOT NULL,
  published_at INTEGER NOT NULL
) STRICT;

CREATE TABLE cairn_messages (
  run_key INTEGER NOT NULL REFERENCES cairn_runs (key) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  kind TEXT NOT NULL,
  name TEXT NOT NULL,
  dedupe_id TEXT,
  payload TEXT NOT NULL,
  accepted_at INTEGER NOT NULL,
  consumed_at INTEGER,
  PRIMARY KEY (run_key, seq)
) STRICT;

CREATE TABLE cairn_queue_grant_log (
  queue TEXT NOT NULL,
  grant_no INTEGER NOT NULL,
  granted_at INTEGER NOT NULL,
  PRIMARY KEY (queue, grant_no)
) STRICT, WITHOUT ROWID;

CREATE TABLE cairn_queue_items (
  queue TEXT NOT NULL,
  run_key INTEGER NOT NULL REFERENCES cairn_runs (key) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  attempt INTEGER NOT NULL,
  priority INTEGER NOT NULL,
  fairness_key TEXT NOT NULL,
  item_order INTEGER NOT NULL,
  enqueued_at INTEGER NOT NULL,
  granted INTEGER NOT NULL,
  PRIMARY KEY (queue, run_key, seq)
) STRICT, WITHOUT ROWID;

CREATE TABLE cairn_queue_keys (
  queue TEXT NOT NULL,
  fairness_key TEXT NOT NULL,
  last_grant INTEGER NOT NULL,
  PRIMARY KEY (queue, fairness_key)
) STRICT, WITHOUT ROWID;

CREATE TABLE cairn_queue_leases (
  queue TEXT NOT NULL,
  owner TEXT NOT NULL,
  slots INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  PRIMARY KEY (queue, owner)
) STRICT, WITHOUT ROWID;

CREATE TABLE cairn_queues (
  name TEXT PRIMARY KEY,
  concurrency INTEGER NOT NULL,
  enqueues INTEGER NOT NULL,
  grants INTEGER NOT NULL
, rate_limit INTEGER, rate_period_ms INTEGER) STRICT, WITHOUT ROWID;

CREATE TABLE cairn_run_tags (
  tag TEXT NOT NULL,
  run_created_at INTEGER NOT NULL,
  run_id TEXT NOT NULL,
  run_key INTEGER NOT NULL REFERENCES cairn_runs (key) ON DELETE CASCADE,
  PRIMARY KEY (tag, run_created_at, run_id)
) STRICT, WITHOUT ROWID;

CREATE TABLE cairn_runs (
  key INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  workflow TEXT NOT NULL,
  version TEXT NOT NULL,
  status TEXT NOT NULL,
  input TEXT NOT NULL,
  output TEXT,
  error TEXT,
  park_reason TEXT,
  waiting_on TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  finished_at INTEGER,
  available_at INTEGER,
  lease_owner TEXT,
  lease_epoch INTEGER NOT NULL,
  turns INTEGER NOT NULL, inbox_seq INTEGER NOT NULL DEFAULT 0, parent_run_id TEXT, parent_seq INTEGER, continued_from TEXT, continued_to TEXT, tags TEXT, origin_kind TEXT, origin_run_id TEXT, origin_from_seq INTEGER, wake_on TEXT, wake_epoch INTEGER, blocked_epoch INTEGER, admission_scope TEXT, admission_key TEXT, admission_seq INTEGER, priority INTEGER NOT NULL DEFAULT 0, queue TEXT, recoveries INTEGER NOT NULL DEFAULT 0,
  CHECK (available_at IS NULL OR status IN ('pending', 'running', 'waiting')),
  CHECK (status <> 'running' OR available_at IS NOT NULL)
) STRICT;

CREATE TABLE cairn_schedules (
  id TEXT NOT NULL PRIMARY KEY,
  workflow TEXT NOT NULL,
  version TEXT,
  spec TEXT NOT NULL,
  paused INTEGER NOT NULL CHECK (paused IN (0, 1)),
  next_at INTEGER,
  last_window INTEGER,
  last_run_id TEXT,
  buffered_window INTEGER,
  fired INTEGER NOT NULL,
  skipped INTEGER NOT NULL,
  revision INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  lease_owner TEXT,
  lease_until INTEGER
) STRICT;

CREATE TABLE cairn_schema (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  revision INTEGER NOT NULL
) STRICT;

CREATE TABLE cairn_search_attributes (
  run_key INTEGER NOT NULL REFERENCES cairn_runs (key) ON DELETE CASCADE,
  name TEXT NOT NULL,
  type TEXT NOT NULL,
  text_value TEXT,
  number_value REAL,
  PRIMARY KEY (run_key, name)
) STRICT;

CREATE TABLE cairn_step_logs (
  run_key INTEGER NOT NULL REFERENCES cairn_runs (key) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  logs TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (run_key, seq)
) STRICT;

CREATE INDEX cairn_event_batches_due ON cairn_event_batches (due_at, id, workflow);

CREATE INDEX cairn_event_batches_leased ON cairn_event_batches (lease_until)
  WHERE lease_until IS NOT NULL;

CREATE UNIQUE INDEX cairn_event_batches_open ON cairn_event_batches (workflow, batch_key, is_open);

CREATE INDEX cairn_event_waits_name ON cairn_event_waits (name);

CREATE INDEX cairn_events_name_published ON cairn_events (name, published_at);

CREATE INDEX cairn_events_published ON cairn_events (published_at);

CREATE UNIQUE INDEX cairn_messages_dedupe ON cairn_messages (run_key, dedupe_id);

CREATE INDEX cairn_queue_items_line ON cairn_queue_items (queue, granted, priority DESC, item_order);

CREATE INDEX cairn_queue_items_run ON cairn_queue_items (run_key);

CREATE INDEX cairn_run_tags_run ON cairn_run_tags (run_key);

CREATE INDEX cairn_runs_admission ON cairn_runs (admission_scope, admission_key, status, admission_seq)
  WHERE admission_scope IS NOT NULL;

CREATE INDEX cairn_runs_claimable ON cairn_runs (available_at, workflow, version)
  WHERE available_at IS NOT NULL;

CREATE INDEX cairn_runs_created ON cairn_runs (created_at DESC, id DESC);

CREATE INDEX cairn_runs_finished ON cairn_runs (status, finished_at, id)
  WHERE finished_at IS NOT NULL;

CREATE INDEX cairn_runs_origin_created ON cairn_runs (origin_run_id, created_at DESC, id DESC)
  WHERE origin_run_id IS NOT NULL;

CREATE INDEX cairn_runs_parent_created ON cairn_runs (parent_run_id, created_at DESC, id DESC)
  WHERE parent_run_id IS NOT NULL;

CREATE INDEX cairn_runs_priority ON cairn_runs (priority, available_at, workflow, version)
  WHERE available_at IS NOT NULL;

CREATE INDEX cairn_runs_status_created ON cairn_runs (status, created_at DESC, id DESC);

CREATE INDEX cairn_runs_workflow_created ON cairn_runs (workflow, created_at DESC, id DESC);

CREATE INDEX cairn_runs_workflow_finished ON cairn_runs (workflow, status, finished_at, id)
  WHERE finished_at IS NOT NULL;

CREATE INDEX cairn_schedules_due ON cairn_schedules (next_at, id, workflow)
  WHERE NOT paused AND next_at IS NOT NULL;

CREATE INDEX cairn_search_attributes_number ON cairn_search_attributes (name, type, number_value, run_key);

CREATE INDEX cairn_search_attributes_text ON cairn_search_attributes (name, type, text_value, run_key);
