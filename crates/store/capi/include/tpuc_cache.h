/* tpuc_cache.h: read tpuc's compile cache from any language (libtpuc_capi).
 *
 * Open a cache, look an executable up by its key (`tpuc key MODEL --target T` prints keys),
 * have its manifest and payload verified, read the serialized executable (the bytes
 * PJRT_Executable_DeserializeAndLoad takes) and how main's arguments and results bind to the
 * program. Layout and keys: docs/cache-format.md.
 *
 * Every function that can fail returns a tpuc_status; tpuc_last_error() then describes the
 * failure (per thread, valid until the thread's next call). Strings are UTF-8 and
 * NUL-terminated; pointers into an entry stay valid until tpuc_entry_free. Handles are not
 * shared between threads without the caller's locking.
 */
#ifndef TPUC_CACHE_H
#define TPUC_CACHE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TPUC_CACHE_ABI_VERSION 1

typedef enum tpuc_status {
    TPUC_OK = 0,
    /* No entry has that key. */
    TPUC_NOT_FOUND = 1,
    /* The entry failed verification (digest, size, seal); it is never returned. A writable
     * cache moves it to quarantine. */
    TPUC_CORRUPT = 2,
    /* A NULL pointer, a key that is not 64 hex digits, an index out of range. */
    TPUC_INVALID_ARGUMENT = 3,
    /* The cache cannot be read (permissions, I/O, a directory that is not one). */
    TPUC_ERROR = 4
} tpuc_status;

typedef struct tpuc_cache tpuc_cache;
typedef struct tpuc_entry tpuc_entry;

/* One argument or result of main. */
typedef struct tpuc_binding {
    /* Arguments: "parameter", "buffer", "constant" (weights, bound by name from the archive)
     * or "input" (user input `index`). Results: "output", "buffer_mutation",
     * "input_mutation". */
    const char *kind;
    /* The weight's or input's name; NULL when it has none (outputs). */
    const char *name;
    /* The user input's or output's position; -1 when it has none (weights). */
    int64_t index;
    /* torch's dtype name: "float32", "bfloat16", "int64", ... */
    const char *dtype;
    const int64_t *shape;
    size_t rank;
    /* In a sharded executable, per dimension the mesh axes it is split over, as JSON
     * ([["tp"],[]]: dimension 0 over axis tp, dimension 1 whole); NULL when unsharded. */
    const char *sharding;
} tpuc_binding;

/* The value of TPUC_CACHE_ABI_VERSION the library was built with. */
uint32_t tpuc_cache_abi_version(void);

/* Opens the cache at `dir` (NULL: $TPUC_CACHE_DIR, $XDG_CACHE_HOME/tpuc or ~/.cache/tpuc).
 * A read-only cache never writes (no quarantine, no last-use times). */
tpuc_status tpuc_cache_open(const char *dir, int read_only, tpuc_cache **out);
void tpuc_cache_close(tpuc_cache *cache);

/* Looks `key` (64 hex digits) up and verifies it; on TPUC_OK `*out` is a new entry. */
tpuc_status tpuc_cache_lookup(tpuc_cache *cache, const char *key, tpuc_entry **out);
/* Verifies the entry `key` without keeping it: TPUC_OK, TPUC_NOT_FOUND or TPUC_CORRUPT. */
tpuc_status tpuc_cache_verify(tpuc_cache *cache, const char *key);
void tpuc_entry_free(tpuc_entry *entry);

/* The serialized executable; `*len` gets its size in bytes. */
const uint8_t *tpuc_entry_executable(const tpuc_entry *entry, size_t *len);
/* The target it was compiled for, e.g. "tpu:v5e:2x2", "cpu". */
const char *tpuc_entry_target(const tpuc_entry *entry);
/* The entry's manifest as JSON (every field docs/cache-format.md lists). */
const char *tpuc_entry_manifest_json(const tpuc_entry *entry);

size_t tpuc_entry_argument_count(const tpuc_entry *entry);
size_t tpuc_entry_result_count(const tpuc_entry *entry);
tpuc_status tpuc_entry_argument(const tpuc_entry *entry, size_t i, tpuc_binding *out);
tpuc_status tpuc_entry_result(const tpuc_entry *entry, size_t i, tpuc_binding *out);

/* Shape buckets: the compile key of the smallest executable recorded in the shape index for
 * program family `family` (64 hex digits, `tpuc key` prints it) and `target` ("cpu",
 * "tpu:v5e:2x2") whose inputs hold `shape`, "NAME=AxB[;NAME=AxB...]" (input names as the
 * manifest's bindings give them). On TPUC_OK, `*key_out` gets the key, NUL-terminated; look
 * it up with tpuc_cache_lookup, and pad each input up to its binding's shape. TPUC_NOT_FOUND:
 * nothing recorded for the target, or no bucket large enough (tpuc_last_error lists them). */
tpuc_status tpuc_cache_find_bucket(tpuc_cache *cache, const char *family, const char *target,
                                   const char *shape, char (*key_out)[65]);

/* What the last failing call on this thread said; "" if none. */
const char *tpuc_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* TPUC_CACHE_H */
