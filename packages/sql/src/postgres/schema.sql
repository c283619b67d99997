CREATE TABLE cairn_admission_keys (
  scope text NOT NULL,
  admission_key text NOT NULL,
  lim bigint NOT NULL,
  next_seq bigint NOT NULL
);

CREATE TABLE cairn_checkpoints (
  run_key bigint NOT NULL,
  seq bigint NOT NULL,
  name text NOT NULL,
  kind text NOT NULL,
  status text NOT NULL,
  attempts bigint NOT NULL,
  delivery_order bigint,
  output text,
  error text,
  wake_at bigint,
  started_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  input text,
  worker text
);

CREATE TABLE cairn_event_batch_items (
  workflow text COLLATE "C" NOT NULL,
  batch_key text COLLATE "C" NOT NULL,
  batch_id text COLLATE "C" NOT NULL,
  item_no integer NOT NULL,
  event_id text COLLATE "C" NOT NULL,
  payload text NOT NULL
);

CREATE TABLE cairn_event_batches (
  workflow text COLLATE "C" NOT NULL,
  batch_key text COLLATE "C" NOT NULL,
  id text COLLATE "C" NOT NULL,
  mode text NOT NULL,
  first_at bigint NOT NULL,
  due_at bigint NOT NULL,
  size integer NOT NULL,
  is_open smallint,
  lease_owner text,
  lease_until bigint
);

CREATE TABLE cairn_event_waits (
  run_id text COLLATE "C" NOT NULL,
  seq bigint NOT NULL,
  name text COLLATE "C" NOT NULL,
  match_json text,
  started_at bigint NOT NULL
);

CREATE TABLE cairn_events (
  id text COLLATE "C" NOT NULL,
  name text COLLATE "C" NOT NULL,
  payload text NOT NULL,
  published_at bigint NOT NULL
);

CREATE TABLE cairn_messages (
  run_key bigint NOT NULL,
  seq bigint NOT NULL,
  kind text NOT NULL,
  name text COLLATE "C" NOT NULL,
  dedupe_id text COLLATE "C",
  payload text NOT NULL,
  accepted_at bigint NOT NULL,
  consumed_at bigint
);

CREATE TABLE cairn_queue_grant_log (
  queue text COLLATE "C" NOT NULL,
  grant_no bigint NOT NULL,
  granted_at bigint NOT NULL
);

CREATE TABLE cairn_queue_items (
  queue text COLLATE "C" NOT NULL,
  run_key bigint NOT NULL,
  seq bigint NOT NULL,
  attempt bigint NOT NULL,
  priority smallint NOT NULL,
  fairness_key text COLLATE "C" NOT NULL,
  item_order bigint NOT NULL,
  enqueued_at bigint NOT NULL,
  granted smallint NOT NULL
);

CREATE TABLE cairn_queue_keys (
  queue text COLLATE "C" NOT NULL,
  fairness_key text COLLATE "C" NOT NULL,
  last_grant bigint NOT NULL
);

CREATE TABLE cairn_queue_leases (
  queue text COLLATE "C" NOT NULL,
  owner text COLLATE "C" NOT NULL,
  slots integer NOT NULL,
  expires_at bigint NOT NULL
);

CREATE TABLE cairn_queues (
  name text COLLATE "C" NOT NULL,
  concurrency integer NOT NULL,
  next_order bigint NOT NULL,
  grants bigint NOT NULL,
  rate_limit integer,
  rate_period_ms integer
);

CREATE TABLE cairn_run_tags (
  tag text COLLATE "C" NOT NULL,
  run_created_at bigint NOT NULL,
  run_id text COLLATE "C" NOT NULL,
  run_key bigint NOT NULL
);

CREATE TABLE cairn_runs (
  key bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
  id text COLLATE "C" NOT NULL,
  workflow text NOT NULL,
  version text NOT NULL,
  status text NOT NULL,
  input text NOT NULL,
  output text,
  error text,
  park_reason text,
  waiting_on text,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  finished_at bigint,
  available_at bigint,
  lease_owner text,
  lease_epoch bigint NOT NULL,
  turns bigint NOT NULL,
  inbox_seq bigint NOT NULL DEFAULT 0,
  parent_run_id text COLLATE "C",
  parent_seq bigint,
  continued_from text COLLATE "C",
  continued_to text COLLATE "C",
  tags text,
  origin_kind text,
  origin_run_id text COLLATE "C",
  origin_from_seq bigint,
  wake_on text,
  wake_epoch bigint,
  blocked_epoch bigint,
  admission_scope text,
  admission_key text,
  admission_seq bigint,
  priority smallint NOT NULL DEFAULT 0,
  queue text COLLATE "C",
  recoveries integer NOT NULL DEFAULT 0
);

CREATE TABLE cairn_schedules (
  id text COLLATE "C" NOT NULL,
  workflow text COLLATE "C" NOT NULL,
  version text COLLATE "C",
  spec text NOT NULL,
  paused boolean NOT NULL,
  next_at bigint,
  last_window bigint,
  last_run_id text COLLATE "C",
  buffered_window bigint,
  fired bigint NOT NULL,
  skipped bigint NOT NULL,
  revision bigint NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  lease_owner text,
  lease_until bigint
);

CREATE TABLE cairn_schema (
  id integer NOT NULL,
  revision integer NOT NULL
);

CREATE TABLE cairn_search_attributes (
  run_key bigint NOT NULL,
  name text COLLATE "C" NOT NULL,
  type text NOT NULL,
  text_value text COLLATE "C",
  number_value double precision
);

CREATE TABLE cairn_step_logs (
  run_key bigint NOT NULL,
  seq bigint NOT NULL,
  logs text NOT NULL,
  updated_at bigint NOT NULL
);

ALTER TABLE cairn_admission_keys ADD CONSTRAINT cairn_admission_keys_pkey PRIMARY KEY (scope, admission_key);

ALTER TABLE cairn_checkpoints ADD CONSTRAINT cairn_checkpoints_pkey PRIMARY KEY (run_key, seq);

ALTER TABLE cairn_event_batch_items ADD CONSTRAINT cairn_event_batch_items_pkey PRIMARY KEY (workflow, batch_key, batch_id, item_no);

ALTER TABLE cairn_event_batches ADD CONSTRAINT cairn_event_batches_mode CHECK ((mode = ANY (ARRAY['debounce'::text, 'batch'::text])));

ALTER TABLE cairn_event_batches ADD CONSTRAINT cairn_event_batches_open UNIQUE (workflow, batch_key, is_open) DEFERRABLE;

ALTER TABLE cairn_event_batches ADD CONSTRAINT cairn_event_batches_open_flag CHECK ((is_open = 1));

ALTER TABLE cairn_event_batches ADD CONSTRAINT cairn_event_batches_pkey PRIMARY KEY (workflow, batch_key, id);

ALTER TABLE cairn_event_waits ADD CONSTRAINT cairn_event_waits_pkey PRIMARY KEY (run_id, seq);

ALTER TABLE cairn_events ADD CONSTRAINT cairn_events_pkey PRIMARY KEY (id);

ALTER TABLE cairn_messages ADD CONSTRAINT cairn_messages_pkey PRIMARY KEY (run_key, seq);

ALTER TABLE cairn_queue_grant_log ADD CONSTRAINT cairn_queue_grant_log_pkey PRIMARY KEY (queue, grant_no);

ALTER TABLE cairn_queue_items ADD CONSTRAINT cairn_queue_items_pkey PRIMARY KEY (queue, run_key, seq);

ALTER TABLE cairn_queue_keys ADD CONSTRAINT cairn_queue_keys_pkey PRIMARY KEY (queue, fairness_key);

ALTER TABLE cairn_queue_leases ADD CONSTRAINT cairn_queue_leases_pkey PRIMARY KEY (queue, owner);

ALTER TABLE cairn_queues ADD CONSTRAINT cairn_queues_pkey PRIMARY KEY (name);

ALTER TABLE cairn_run_tags ADD CONSTRAINT cairn_run_tags_pkey PRIMARY KEY (tag, run_created_at, run_id) INCLUDE (run_key);

ALTER TABLE cairn_runs ADD CONSTRAINT cairn_runs_claimable_status CHECK (((available_at IS NULL) OR (status = ANY (ARRAY['pending'::text, 'running'::text, 'waiting'::text]))));

ALTER TABLE cairn_runs ADD CONSTRAINT cairn_runs_id_key UNIQUE (id);

ALTER TABLE cairn_runs ADD CONSTRAINT cairn_runs_pkey PRIMARY KEY (key);

ALTER TABLE cairn_runs ADD CONSTRAINT cairn_runs_running_leased CHECK (((status <> 'running'::text) OR (available_at IS NOT NULL)));

ALTER TABLE cairn_schedules ADD CONSTRAINT cairn_schedules_pkey PRIMARY KEY (id);

ALTER TABLE cairn_schema ADD CONSTRAINT cairn_schema_id_check CHECK ((id = 1));

ALTER TABLE cairn_schema ADD CONSTRAINT cairn_schema_pkey PRIMARY KEY (id);

ALTER TABLE cairn_search_attributes ADD CONSTRAINT cairn_search_attributes_pkey PRIMARY KEY (run_key, name);

ALTER TABLE cairn_step_logs ADD CONSTRAINT cairn_step_logs_pkey PRIMARY KEY (run_key, seq);

CREATE INDEX cairn_event_batches_due ON cairn_event_batches USING btree (due_at, id, workflow);

CREATE INDEX cairn_event_batches_leased ON cairn_event_batches USING btree (lease_until) WHERE (lease_until IS NOT NULL);

CREATE INDEX cairn_event_waits_name ON cairn_event_waits USING btree (name);

CREATE INDEX cairn_events_name_published ON cairn_events USING btree (name, published_at);

CREATE INDEX cairn_events_published ON cairn_events USING btree (published_at);

CREATE UNIQUE INDEX cairn_messages_dedupe ON cairn_messages USING btree (run_key, dedupe_id);

CREATE INDEX cairn_queue_items_line ON cairn_queue_items USING btree (queue, granted, priority DESC, item_order);

CREATE INDEX cairn_queue_items_run ON cairn_queue_items USING btree (run_key);

CREATE INDEX cairn_runs_admission ON cairn_runs USING btree (admission_scope, admission_key, status, admission_seq) WHERE (admission_scope IS NOT NULL);

CREATE INDEX cairn_runs_claimable ON cairn_runs USING btree (available_at, workflow, version) WHERE (available_at IS NOT NULL);

CREATE INDEX cairn_runs_created ON cairn_runs USING btree (created_at DESC, id DESC);

CREATE INDEX cairn_runs_finished ON cairn_runs USING btree (status, finished_at, id) WHERE (finished_at IS NOT NULL);

CREATE INDEX cairn_runs_origin_created ON cairn_runs USING btree (origin_run_id, created_at DESC, id DESC) WHERE (origin_run_id IS NOT NULL);

CREATE INDEX cairn_runs_parent_created ON cairn_runs USING btree (parent_run_id, created_at DESC, id DESC) WHERE (parent_run_id IS NOT NULL);

CREATE INDEX cairn_runs_priority ON cairn_runs USING btree (priority, available_at, workflow, version) WHERE (available_at IS NOT NULL);

CREATE INDEX cairn_runs_status_created ON cairn_runs USING btree (status, created_at DESC, id DESC);

CREATE INDEX cairn_runs_workflow_created ON cairn_runs USING btree (workflow, created_at DESC, id DESC);

CREATE INDEX cairn_runs_workflow_finished ON cairn_runs USING btree (workflow, status, finished_at, id) WHERE (finished_at IS NOT NULL);

CREATE INDEX cairn_schedules_due ON cairn_schedules USING btree (next_at, id, workflow) WHERE ((NOT paused) AND (next_at IS NOT NULL));

CREATE INDEX cairn_search_attributes_number ON cairn_search_attributes USING btree (name, type, number_value, run_key);

CREATE INDEX cairn_search_attributes_text ON cairn_search_attributes USING btree (name, type, text_value, run_key);
