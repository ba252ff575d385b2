/*
 * The one name-pasting macro of the tree.
 *
 * Per-curve code is written once as a template (a *_template.h file) and
 * stamped out per curve or field by defining a prefix and including it;
 * inside, names are built as CUZK_PASTE(prefix, name) -> prefix_name.  The
 * two levels make the arguments expand first, so the prefix may itself be
 * a macro (FIELD, CURVE, ...).  Templates must not define their own
 * pasting macros.
 */
#ifndef CUZK_UTIL_PASTE_H
#define CUZK_UTIL_PASTE_H

#define CUZK_PASTE_RAW(a, b) a##_##b
#define CUZK_PASTE(a, b) CUZK_PASTE_RAW(a, b)

#endif
