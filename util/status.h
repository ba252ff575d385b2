/*
 * Status codes and error reports shared by every layer.
 *
 * Anything that can fail returns a cuzk_status and, when the caller passes a
 * cuzk_error, writes a one-line human-readable reason into it.  The codes and
 * their names come from one list (CUZK_STATUS_MAP) so the enum and the text
 * cannot drift apart.  That list, the types and cuzk_fail are part of the
 * public API and live in include/cuzk.h; the internal layers include this
 * file, which stays their one way to that table.
 * Library code never exits or aborts on bad input.
 */
#ifndef CUZK_STATUS_H
#define CUZK_STATUS_H

#include <stddef.h>

#include "cuzk.h" /* the status table, cuzk_status, cuzk_error, cuzk_fail */

#endif
