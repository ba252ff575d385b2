/* SHA-256 against the example messages of FIPS 180-4 (NIST's published
 * digests), the empty message, a million 'a's fed in uneven pieces and
 * 300,007 pseudo-random bytes (digest from Python's hashlib) fed in pieces
 * of every size up to 5000.  Run once on the path the processor gives
 * (the SHA extensions where it has them), then again in a child forced
 * onto the portable path (CUZK_SHA256_PORTABLE=1). */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/testutil.h"
#include "util/sha256.h"

int main(int argc, char **argv) {
    tu_init(argc, argv, "sha256");
    static const struct {
        const char *msg, *hex;
    } kat[] = {
        {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
        {"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklm"
         "nopqrlmnopqrsmnopqrstnopqrstu",
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"},
    };
    for (size_t i = 0; i < sizeof kat / sizeof *kat; i++) {
        char hex[65];
        cuzk_sha256_hex(hex, kat[i].msg, strlen(kat[i].msg));
        CHECK(!strcmp(hex, kat[i].hex), "message %zu: %s", i, hex);
    }
    /* one million 'a' in pieces of 1..127 bytes */
    static char a[128];
    memset(a, 'a', sizeof a);
    cuzk_sha256 s;
    cuzk_sha256_init(&s);
    size_t left = 1000000, piece = 1;
    while (left) {
        size_t n = piece < left ? piece : left;
        cuzk_sha256_update(&s, a, n);
        left -= n;
        piece = piece % 127 + 1;
    }
    uint8_t d[32];
    char hex[65];
    cuzk_sha256_final(&s, d);
    cuzk_sha256_to_hex(hex, d);
    CHECK(!strcmp(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"),
          "a million a: %s", hex);

    size_t nr = 300007;
    uint8_t *r = malloc(nr);
    CHECK(r != NULL, "no memory");
    if (r) {
        uint64_t x = 1;
        for (size_t i = 0; i < nr; i++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            r[i] = (uint8_t)(x >> 56);
        }
        cuzk_sha256_init(&s);
        for (size_t off = 0, piece = 1; off < nr; off += piece, piece = piece % 5000 + 1)
            cuzk_sha256_update(&s, r + off, piece < nr - off ? piece : nr - off);
        cuzk_sha256_final(&s, d);
        cuzk_sha256_to_hex(hex, d);
        CHECK(!strcmp(hex, "1ebbcd2774d7ee0b809894e771bda98dc9cc2f51287c3512ed714db0b3e576c4"),
              "pseudo-random bytes: %s", hex);
        free(r);
    }

    const char *portable = getenv("CUZK_SHA256_PORTABLE");
    if (!portable || strcmp(portable, "1")) {
        pid_t pid = fork();
        if (pid == 0) {
            setenv("CUZK_SHA256_PORTABLE", "1", 1);
            execv("/proc/self/exe", argv);
            _exit(127);
        }
        int st = 0;
        CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st),
              "the portable path failed (status %d)", st);
    }
    return tu_finish();
}
