CREATE TABLE `cairn_admission_keys` (
  `scope` varbinary(1020) NOT NULL,
  `admission_key` varbinary(1024) NOT NULL,
  `lim` bigint(20) NOT NULL,
  `next_seq` bigint(20) NOT NULL,
  PRIMARY KEY (`scope`,`admission_key`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE `cairn_checkpoints` (
  `run_key` bigint(20) NOT NULL,
  `seq` bigint(20) NOT NULL,
  `name` text NOT NULL,
  `kind` varchar(16) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  `status` varchar(16) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  `attempts` bigint(20) NOT NULL,
  `delivery_order` bigint(20) DEFAULT NULL,
  `output` longtext DEFAULT NULL,
  `error` longtext DEFAULT NULL,
  `wake_at` bigint(20) DEFAULT NULL,
  `started_at` bigint(20) NOT NULL,
  `updated_at` bigint(20) NOT NULL,
  `input` longtext DEFAULT NULL,
  `worker` text DEFAULT NULL,
  PRIMARY KEY (`run_key`,`seq`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE `cairn_events` (
  `id` varbinary(1020) NOT NULL,
  `name` varbinary(1020) NOT NULL,
  `payload` longtext NOT NULL,
  `published_at` bigint(20) NOT NULL,
  PRIMARY KEY (`id`),
  KEY `cairn_events_name_published` (`name`,`published_at`),
  KEY `cairn_events_published` (`published_at`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE `cairn_event_batches` (
  `workflow` varbinary(1020) NOT NULL,
  `batch_key` varbinary(800) NOT NULL,
  `id` varbinary(1020) NOT NULL,
  `mode` varchar(16) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  `first_at` bigint(20) NOT NULL,
  `due_at` bigint(20) NOT NULL,
  `size` int(11) NOT NULL,
  `is_open` tinyint(4) DEFAULT NULL,
  `lease_owner` varbinary(1020) DEFAULT NULL,
  `lease_until` bigint(20) DEFAULT NULL,
  PRIMARY KEY (`workflow`,`batch_key`,`id`),
  UNIQUE KEY `cairn_event_batches_open` (`workflow`,`batch_key`,`is_open`),
  KEY `cairn_event_batches_due` (`due_at`,`id`,`workflow`),
  KEY `cairn_event_batches_leased` (`lease_until`),
  CONSTRAINT `cairn_event_batches_open_flag` CHECK (`is_open` = 1),
  CONSTRAINT `cairn_event_batches_mode` CHECK (`mode` in ('debounce','batch'))
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE `cairn_event_batch_items` (
  `workflow` varbinary(1020) NOT NULL,
  `batch_key` varbinary(800) NOT NULL,
  `batch_id` varbinary(1020) NOT NULL,
  `item_no` int(11) NOT NULL,
  `event_id` varbinary(1020) NOT NULL,
  `payload` longtext NOT NULL,
  PRIMARY KEY (`workflow`,`batch_key`,`batch_id`,`item_no`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE `cairn_event_waits` (
  `run_id` varbinary(1020) NOT NULL,
  `seq` bigint(20) NOT NULL,
  `name` varbinary(1020) NOT NULL,
  `match_json` longtext DEFAULT NULL,
  `started_at` bigint(20) NOT NULL,
  PRIMARY KEY (`run_id`,`seq`),
  KEY `cairn_event_waits_name` (`name`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE `cairn_messages` (
  `run_key` bigint(20) NOT NULL,
  `seq` bigint(20) NOT NULL,
  `kind` varchar(16) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  `name` varbinary(1020) NOT NULL,
  `dedupe_id` varbinary(1020) DEFAULT NULL,
  `payload` longtext NOT NULL,
  `accepted_at` bigint(20) NOT NULL,
  `consumed_at` bigint(20) DEFAULT NULL,
  PRIMARY KEY (`run_key`,`seq`),
  UNIQUE KEY `cairn_messages_dedupe` (`run_key`,`dedupe_id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE `cairn_queues` (
  `name` varbinary(800) NOT NULL,
  `concurrency` int(11) NOT NULL,
  `next_order` bigint(20) NOT NULL,
  `grants` bigint(20) NOT NULL,
  `rate_limit` int(11) DEFAULT NULL,
  `rate_period_ms` int(11) DEFAULT NULL,
  PRIMARY KEY (`name`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE `cairn_queue_grant_log` (
  `queue` varbinary(800) NOT NULL,
  `grant_no` bigint(20) NOT NULL,
  `granted_at` bigint(20) NOT NULL,
  PRIMARY KEY (`queue`,`grant_no`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE `cairn_queue_items` (
  `queue` varbinary(800) NOT NULL,
  `run_key` bigint(20) NOT NULL,
  `seq` bigint(20) NOT NULL,
  `attempt` bigint(20) NOT NULL,
  `priority` smallint(6) NOT NULL,
  `fairness_key` varbinary(800) NOT NULL,
  `item_order` bigint(20) NOT NULL,
  `enqueued_at` bigint(20) NOT NULL,
  `granted` smallint(6) NOT NULL,
  PRIMARY KEY (`queue`,`run_key`,`seq`),
  KEY `cairn_queue_items_run` (`run_key`),
  KEY `cairn_queue_items_line` (`queue`,`granted`,`priority` DESC,`item_order`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE `cairn_queue_keys` (
  `queue` varbinary(800) NOT NULL,
  `fairness_key` varbinary(800) NOT NULL,
  `last_grant` bigint(20) NOT NULL,
  PRIMARY KEY (`queue`,`fairness_key`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE `cairn_queue_leases` (
  `queue` varbinary(800) NOT NULL,
  `owner` varbinary(800) NOT NULL,
  `slots` int(11) NOT NULL,
  `expires_at` bigint(20) NOT NULL,
  PRIMARY KEY (`queue`,`owner`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE `cairn_runs` (
  `key` bigint(20) NOT NULL AUTO_INCREMENT,
  `id` varbinary(1020) NOT NULL,
  `workflow` varbinary(1020) NOT NULL,
  `version` varbinary(1020) NOT NULL,
  `status` varchar(16) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  `input` longtext NOT NULL,
  `output` longtext DEFAULT NULL,
  `error` longtext DEFAULT NULL,
  `park_reason` longtext DEFAULT NULL,
  `waiting_on` text DEFAULT NULL,
  `created_at` bigint(20) NOT NULL,
  `updated_at` bigint(20) NOT NULL,
  `finished_at` bigint(20) DEFAULT NULL,
  `available_at` bigint(20) DEFAULT NULL,
  `lease_owner` varbinary(1020) DEFAULT NULL,
  `lease_epoch` bigint(20) NOT NULL,
  `turns` bigint(20) NOT NULL,
  `inbox_seq` bigint(20) NOT NULL DEFAULT 0,
  `parent_run_id` varbinary(1020) DEFAULT NULL,
  `parent_seq` bigint(20) DEFAULT NULL,
  `continued_from` varbinary(1020) DEFAULT NULL,
  `continued_to` varbinary(1020) DEFAULT NULL,
  `tags` text DEFAULT NULL,
  `origin_kind` varchar(8) DEFAULT NULL,
  `origin_run_id` varbinary(1020) DEFAULT NULL,
  `origin_from_seq` bigint(20) DEFAULT NULL,
  `wake_on` text DEFAULT NULL,
  `wake_epoch` bigint(20) DEFAULT NULL,
  `blocked_epoch` bigint(20) DEFAULT NULL,
  `admission_scope` varbinary(1020) DEFAULT NULL,
  `admission_key` varbinary(1024) DEFAULT NULL,
  `admission_seq` bigint(20) DEFAULT NULL,
  `priority` smallint(6) NOT NULL DEFAULT 0,
  `queue` varbinary(800) DEFAULT NULL,
  `recoveries` int(11) NOT NULL DEFAULT 0,
  PRIMARY KEY (`key`),
  UNIQUE KEY `cairn_runs_id` (`id`),
  KEY `cairn_runs_claimable` (`available_at`,`workflow`,`version`),
  KEY `cairn_runs_created` (`created_at` DESC,`id` DESC),
  KEY `cairn_runs_workflow_created` (`workflow`,`created_at` DESC,`id` DESC),
  KEY `cairn_runs_status_created` (`status`,`created_at` DESC,`id` DESC),
  KEY `cairn_runs_parent_created` (`parent_run_id`,`created_at` DESC,`id` DESC),
  KEY `cairn_runs_origin_created` (`origin_run_id`,`created_at` DESC,`id` DESC),
  KEY `cairn_runs_admission` (`admission_scope`,`admission_key`,`status`,`admission_seq`),
  KEY `cairn_runs_priority` (`priority`,`available_at`,`workflow`,`version`),
  KEY `cairn_runs_finished` (`status`,`finished_at`,`id`),
  KEY `cairn_runs_workflow_finished` (`workflow`,`status`,`finished_at`,`id`),
  CONSTRAINT `cairn_runs_claimable_status` CHECK (`available_at` is null or `status` in ('pending','running','waiting')),
  CONSTRAINT `cairn_runs_running_leased` CHECK (`status` <> 'running' or `available_at` is not null)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE `cairn_run_tags` (
  `tag` varbinary(256) NOT NULL,
  `run_created_at` bigint(20) NOT NULL,
  `run_id` varbinary(1020) NOT NULL,
  `run_key` bigint(20) NOT NULL,
  PRIMARY KEY (`tag`,`run_created_at`,`run_id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE `cairn_schedules` (
  `id` varbinary(1020) NOT NULL,
  `workflow` varbinary(1020) NOT NULL,
  `version` varbinary(1020) DEFAULT NULL,
  `spec` longtext NOT NULL,
  `paused` tinyint(4) NOT NULL,
  `next_at` bigint(20) DEFAULT NULL,
  `last_window` bigint(20) DEFAULT NULL,
  `last_run_id` varbinary(1020) DEFAULT NULL,
  `buffered_window` bigint(20) DEFAULT NULL,
  `fired` bigint(20) NOT NULL,
  `skipped` bigint(20) NOT NULL,
  `revision` bigint(20) NOT NULL,
  `created_at` bigint(20) NOT NULL,
  `updated_at` bigint(20) NOT NULL,
  `lease_owner` varbinary(1020) DEFAULT NULL,
  `lease_until` bigint(20) DEFAULT NULL,
  PRIMARY KEY (`id`),
  KEY `cairn_schedules_due` (`paused`,`next_at`,`id`,`workflow`),
  CONSTRAINT `cairn_schedules_paused` CHECK (`paused` in (0,1))
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE `cairn_schema` (
  `id` int(11) NOT NULL CHECK (`id` = 1),
  `revision` int(11) NOT NULL,
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE `cairn_search_attributes` (
  `run_key` bigint(20) NOT NULL,
  `name` varbinary(64) NOT NULL,
  `type` varchar(8) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  `text_value` varbinary(1024) DEFAULT NULL,
  `number_value` double DEFAULT NULL,
  PRIMARY KEY (`run_key`,`name`),
  KEY `cairn_search_attributes_text` (`name`,`type`,`text_value`,`run_key`),
  KEY `cairn_search_attributes_number` (`name`,`type`,`number_value`,`run_key`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE `cairn_step_logs` (
  `run_key` bigint(20) NOT NULL,
  `seq` bigint(20) NOT NULL,
  `logs` longtext NOT NULL,
  `updated_at` bigint(20) NOT NULL,
  PRIMARY KEY (`run_key`,`seq`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
