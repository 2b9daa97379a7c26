/* Reads one entry through tpuc_cache.h: check_cache CACHE_DIR KEY prints what it found.
 * Exit 0 on TPUC_OK, else the status. */
#include <stdio.h>
#include <string.h>

#include "tpuc_cache.h"

static void print_binding(const char *what, size_t i, const tpuc_binding *b) {
    printf("%s %zu %s %s %lld %s [", what, i, b->kind, b->name ? b->name : "-",
           (long long)b->index, b->dtype);
    for (size_t d = 0; d < b->rank; d++) {
        printf(d ? ",%lld" : "%lld", (long long)b->shape[d]);
    }
    printf("] %s\n", b->sharding ? b->sharding : "-");
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: check_cache CACHE_DIR KEY\n");
        return 64;
    }
    if (tpuc_cache_abi_version() != TPUC_CACHE_ABI_VERSION) {
        fprintf(stderr, "ABI version %u, header %d\n", tpuc_cache_abi_version(),
                TPUC_CACHE_ABI_VERSION);
        return 65;
    }
    tpuc_cache *cache = NULL;
    tpuc_status status = tpuc_cache_open(argv[1], 1, &cache);
    if (status != TPUC_OK) {
        fprintf(stderr, "open: %s\n", tpuc_last_error());
        return status;
    }
    status = tpuc_cache_verify(cache, argv[2]);
    printf("verify %d\n", status);
    tpuc_entry *entry = NULL;
    status = tpuc_cache_lookup(cache, argv[2], &entry);
    if (status != TPUC_OK) {
        printf("lookup %d %s\n", status, tpuc_last_error());
        tpuc_cache_close(cache);
        return status;
    }
    size_t len = 0;
    const uint8_t *bytes = tpuc_entry_executable(entry, &len);
    printf("target %s\n", tpuc_entry_target(entry));
    printf("executable %zu %s\n", len, bytes ? "bytes" : "NULL");
    printf("manifest %s\n", strstr(tpuc_entry_manifest_json(entry), "\"signature\"") ? "json" : "?");
    tpuc_binding binding;
    for (size_t i = 0; i < tpuc_entry_argument_count(entry); i++) {
        if (tpuc_entry_argument(entry, i, &binding) != TPUC_OK) return 66;
        print_binding("argument", i, &binding);
    }
    for (size_t i = 0; i < tpuc_entry_result_count(entry); i++) {
        if (tpuc_entry_result(entry, i, &binding) != TPUC_OK) return 66;
        print_binding("result", i, &binding);
    }
    status = tpuc_entry_argument(entry, 1000, &binding);
    printf("out of range %d %s\n", status, tpuc_last_error());
    tpuc_entry_free(entry);
    tpuc_cache_close(cache);
    return 0;
}
