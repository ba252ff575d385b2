/*
 * The scheduler's queues, as data: the jobs waiting for admission by
 * priority (sq_*) and the jobs with a deadline (dl_*), under sched_lock.
 * Below both the job's life (job.c: a drained job leaves the queues) and
 * the scheduler thread (sched.c: it walks and unlinks them), so neither
 * calls the other to touch them; this file calls no other engine file
 * (docs/INTERNALS.md, "engine/'s layers").
 */
#include "engine/internal.h"

void engine_schedq_unlink_locked(cuzk_engine *e, engine_job *j) {
    if (!j->in_sched)
        return;
    int q = j->prio;
    if (j->sq_prev)
        j->sq_prev->sq_next = j->sq_next;
    else
        e->sq_head[q] = j->sq_next;
    if (j->sq_next)
        j->sq_next->sq_prev = j->sq_prev;
    else
        e->sq_tail[q] = j->sq_prev;
    j->sq_next = j->sq_prev = NULL;
    j->in_sched = 0;
    e->sq_n[q]--;
    if (j->key_wanted) {
        pthread_mutex_lock(&e->keys_lock);
        j->key->wanted--;
        pthread_mutex_unlock(&e->keys_lock);
        j->key_wanted = 0;
    }
}

void engine_sched_enqueue(cuzk_engine *e, engine_job *j) {
    pthread_mutex_lock(&e->sched_lock);
    int q = j->prio;
    j->sq_prev = e->sq_tail[q];
    j->sq_next = NULL;
    if (e->sq_tail[q])
        e->sq_tail[q]->sq_next = j;
    else
        e->sq_head[q] = j;
    e->sq_tail[q] = j;
    e->sq_n[q]++;
    j->in_sched = 1;
    if (j->deadline_ns) {
        j->dl_prev = NULL;
        j->dl_next = e->dl_head;
        if (e->dl_head)
            e->dl_head->dl_prev = j;
        e->dl_head = j;
        j->in_deadline = 1;
    }
    pthread_mutex_unlock(&e->sched_lock);
    engine_event_kick(&e->sched_ev);
}

void engine_sched_forget(cuzk_engine *e, engine_job *j) {
    pthread_mutex_lock(&e->sched_lock);
    engine_schedq_unlink_locked(e, j);
    if (j->in_deadline) {
        if (j->dl_prev)
            j->dl_prev->dl_next = j->dl_next;
        else
            e->dl_head = j->dl_next;
        if (j->dl_next)
            j->dl_next->dl_prev = j->dl_prev;
        j->in_deadline = 0;
    }
    pthread_mutex_unlock(&e->sched_lock);
}

