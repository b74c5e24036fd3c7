/*
 * jexact.h - a cJSON value printed with its numbers exact. cJSON prints
 * a number with 15 significant digits when that reads back within a
 * relative DBL_EPSILON of it, so 9007199254740991 (2^53 - 1, the bound
 * zod gives every integer of a TypeScript server's schema) comes out as
 * 9.00719925474099e+15, which reads back as another number. Here a
 * number is printed as JavaScript prints it (the servers' own language,
 * mostly): whole below 1e21, else with the fewest digits (15, 16 or 17)
 * that read back as exactly the same double.
 */
#ifndef MCPFS_JEXACT_H
#define MCPFS_JEXACT_H

#include <stddef.h>

#include <cjson/cJSON.h>

/* d as JSON text in buf (at least 32 bytes). */
void jexact_number(char *buf, size_t n, double d);

/* v as cJSON_Print (formatted) or cJSON_PrintUnformatted would, its
 * numbers by jexact_number: cJSON_malloc'd (cJSON_free it), NULL when
 * out of memory. */
char *jexact_print(const cJSON *v, int formatted);

#endif
