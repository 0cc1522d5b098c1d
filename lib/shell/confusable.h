/* Program names that look like others: for the preview only. */
#ifndef CORDON_CONFUSABLE_H
#define CORDON_CONFUSABLE_H

/* The ASCII name a non-ASCII word reads as (fullwidth forms, Cyrillic and
 * Greek look-alikes, invisible characters folded), malloc'd; NULL when
 * nothing was folded or some character reads as no ASCII one. */
char *confusable_fold(const char *name);

#endif
