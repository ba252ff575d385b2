/*
 * A fleet of cuzkd nodes sharing one job queue in PostgreSQL (fleet.c,
 * docs/DAEMON.md "Running a fleet").
 *
 * With `fleet_db` set, POST /v1/jobs on any node commits the job (and its
 * witnesses or inputs) to the database before answering, and every node's
 * fleet thread claims queued partitions of jobs it can prove, under a lease
 * it renews, hands each to its own engine, and commits its proof only while
 * it still holds the lease (the last partition's commit ends the job).  Status, result and cancel read and write the database,
 * so they work from any node.  Without `fleet_db` nothing here runs and
 * srv->fleet stays NULL: the daemon keeps its jobs in memory as before.
 *
 * The hooks in the other server files are one call each: start and stop
 * (cuzkd.c), the job store (fleet_store.c, chosen by cuzkd.c for the job
 * endpoints: jobs.h), /v1/status and /metrics (api_status.c).
 */
#ifndef CUZKD_FLEET_H
#define CUZKD_FLEET_H

#include <time.h>

#include "server/http.h"

/* With cfg->fleet_db set: the fleet's state and thread (it connects,
 * migrates the schema and starts claiming once srv->ready); srv->fleet is
 * set.  Without: CUZK_OK and nothing.  CUZK_EUNSUPPORTED when cuzkd was
 * built without libpq. */
cuzk_status cuzkd_fleet_start(cuzkd_server *srv, cuzk_error *err);
/* Stop claiming, commit what finished, hand back the leases of what did
 * not (other nodes take those at once), close the connections.  After the
 * listeners stopped, before the engine is destroyed. */
void cuzkd_fleet_stop(cuzkd_server *srv);

/* Wait until the fleet thread has reached the database and migrated its
 * schema (cuzkd logs `ready` only then); the thread logs why it waits.
 * 1 when connected (or without a fleet), 0 when |stop|() asked to stop
 * first. */
int cuzkd_fleet_wait_db(cuzkd_server *srv, int (*stop)(void));
/* 1 when this node has a fleet and does not reach its database now: the
 * reason into |why|, since when into |since| (wall clock) and |secs|. */
int cuzkd_fleet_unreachable(cuzkd_server *srv, char *why, size_t why_n, time_t *since,
                            double *secs);

/* The "fleet" object of /v1/status (the fleet thread's last snapshot: no
 * database access here); NULL without a fleet. */
json_t *cuzkd_fleet_json(cuzkd_server *srv);
/* Prometheus text of the fleet gauges (malloc'd, NUL terminated); NULL
 * without a fleet. */
char *cuzkd_fleet_metrics(cuzkd_server *srv);

#endif
