/* Shape buckets through tpuc_cache.h: find_bucket CACHE_DIR FAMILY TARGET SHAPE prints the
 * key of the smallest bucket that holds SHAPE, then each sharded argument of a KEY given as a
 * fifth argument. Exit 0 on TPUC_OK, else the status. */
#include <stdio.h>

#include "tpuc_cache.h"

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: find_bucket CACHE_DIR FAMILY TARGET SHAPE\n");
        return 64;
    }
    tpuc_cache *cache = NULL;
    tpuc_status status = tpuc_cache_open(argv[1], 1, &cache);
    if (status != TPUC_OK) {
        fprintf(stderr, "open: %s\n", tpuc_last_error());
        return status;
    }
    char key[65];
    status = tpuc_cache_find_bucket(cache, argv[2], argv[3], argv[4], &key);
    if (status != TPUC_OK) {
        printf("status %d %s\n", status, tpuc_last_error());
        tpuc_cache_close(cache);
        return status;
    }
    printf("bucket %s\n", key);
    tpuc_entry *entry = NULL;
    status = tpuc_cache_lookup(cache, key, &entry);
    if (status == TPUC_OK) {
        tpuc_binding binding;
        for (size_t i = 0; i < tpuc_entry_argument_count(entry); i++) {
            if (tpuc_entry_argument(entry, i, &binding) == TPUC_OK && binding.kind[0] == 'i') {
                printf("input %s", binding.name ? binding.name : "-");
                for (size_t d = 0; d < binding.rank; d++) {
                    printf(d ? "x%lld" : " %lld", (long long)binding.shape[d]);
                }
                printf("\n");
            }
        }
        tpuc_entry_free(entry);
    }
    tpuc_cache_close(cache);
    return status;
}
