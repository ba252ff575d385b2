-- The fleet schema as version 1 of server/fleet.c created it (job leases),
-- frozen here so that the test can check the migration to later versions.
CREATE TABLE cuzk_fleet_schema (version int NOT NULL);
CREATE TABLE cuzk_fleet_jobs (
  id bigserial PRIMARY KEY,
  request_id text NOT NULL UNIQUE,
  content_sha text NOT NULL,
  key_id text NOT NULL, key_path text NOT NULL, key_sha text NOT NULL,
  priority int NOT NULL, deadline timestamptz,
  n_partitions int NOT NULL, inputs bool NOT NULL, circuit text NOT NULL DEFAULT '',
  state text NOT NULL DEFAULT 'queued',
  lease_owner text, lease_epoch int NOT NULL DEFAULT 0, lease_until timestamptz,
  attempts int NOT NULL DEFAULT 0,
  submitted_by text NOT NULL, client text NOT NULL DEFAULT '',
  done_by text, status text NOT NULL DEFAULT 'OK', error text NOT NULL DEFAULT '',
  simulated bool NOT NULL DEFAULT false, result_json text, result_raw bytea,
  created timestamptz NOT NULL DEFAULT now(), finished timestamptz);
CREATE INDEX cuzk_fleet_jobs_open ON cuzk_fleet_jobs (priority DESC, id)
  WHERE state IN ('queued', 'running');
CREATE TABLE cuzk_fleet_parts (
  job_id bigint NOT NULL REFERENCES cuzk_fleet_jobs (id) ON DELETE CASCADE,
  idx int NOT NULL, data bytea NOT NULL, PRIMARY KEY (job_id, idx));
CREATE TABLE cuzk_fleet_commits (
  job_id bigint NOT NULL, node text NOT NULL, epoch int NOT NULL, state text NOT NULL,
  at timestamptz NOT NULL DEFAULT now());
CREATE INDEX cuzk_fleet_commits_job ON cuzk_fleet_commits (job_id);
CREATE TABLE cuzk_fleet_nodes (
  name text PRIMARY KEY, started timestamptz NOT NULL, heartbeat timestamptz NOT NULL,
  devices text NOT NULL DEFAULT '', busy real NOT NULL DEFAULT 0,
  proofs bigint NOT NULL DEFAULT 0, jobs_done bigint NOT NULL DEFAULT 0,
  held int NOT NULL DEFAULT 0);
INSERT INTO cuzk_fleet_schema VALUES (1);
