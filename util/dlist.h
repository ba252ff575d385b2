/*
 * A doubly linked list kept as a head and a tail pointer, its nodes
 * linked through members named prev and next: append at the tail, and
 * unlink from anywhere in constant time.  Macros, so that one pair serves
 * every node type; their arguments are evaluated more than once and must
 * be plain lvalues without side effects.  No locking: the list's owner
 * holds whatever lock guards it.
 */
#ifndef CUZK_UTIL_DLIST_H
#define CUZK_UTIL_DLIST_H

#include <stddef.h>

/* |node| (not on the list) becomes the last one. */
#define CUZK_DLIST_APPEND(head, tail, node)                                                  \
    do {                                                                                     \
        (node)->next = NULL;                                                                 \
        (node)->prev = (tail);                                                               \
        if (tail)                                                                            \
            (tail)->next = (node);                                                           \
        else                                                                                 \
            (head) = (node);                                                                 \
        (tail) = (node);                                                                     \
    } while (0)

/* |node| (on the list) leaves it; its own prev and next are left as they
 * were. */
#define CUZK_DLIST_UNLINK(head, tail, node)                                                  \
    do {                                                                                     \
        if ((node)->prev)                                                                    \
            (node)->prev->next = (node)->next;                                               \
        else                                                                                 \
            (head) = (node)->next;                                                           \
        if ((node)->next)                                                                    \
            (node)->next->prev = (node)->prev;                                               \
        else                                                                                 \
            (tail) = (node)->prev;                                                           \
    } while (0)

#endif
