/* libFuzzer target: the tandem trace reader (fed in two chunks, so records
 * are cut at every position) and the verifier against a small RV64 program
 * of pseudo-random instructions. Whatever the bytes say, both end with
 * records, divergences or an error naming a byte offset; never a crash or an
 * endless loop (each group steps the model at most once). */
#include <elf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rvtrace/tandem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CODE_BASE 0x80000000u
#define CODE_BYTES 4096u

static uint8_t elf[sizeof(Elf64_Ehdr) + sizeof(Elf64_Phdr) + CODE_BYTES];

/* An ELF with one loadable, executable segment of pseudo-random code. */
static void build_elf(void) {
    Elf64_Ehdr *eh = (Elf64_Ehdr *)elf;
    Elf64_Phdr *ph = (Elf64_Phdr *)(elf + sizeof *eh);
    memcpy(eh->e_ident, ELFMAG, SELFMAG);
    eh->e_ident[EI_CLASS] = ELFCLASS64;
    eh->e_ident[EI_DATA] = ELFDATA2LSB;
    eh->e_ident[EI_VERSION] = EV_CURRENT;
    eh->e_type = ET_EXEC;
    eh->e_machine = EM_RISCV;
    eh->e_version = EV_CURRENT;
    eh->e_entry = CODE_BASE;
    eh->e_phoff = sizeof *eh;
    eh->e_ehsize = sizeof *eh;
    eh->e_phentsize = sizeof *ph;
    eh->e_phnum = 1;
    ph->p_type = PT_LOAD;
    ph->p_flags = PF_R | PF_X;
    ph->p_offset = sizeof *eh + sizeof *ph;
    ph->p_vaddr = ph->p_paddr = CODE_BASE;
    ph->p_filesz = ph->p_memsz = CODE_BYTES;
    ph->p_align = 4096;
    uint32_t x = 2463534242u;
    for (size_t i = 0; i < CODE_BYTES; i += 4) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        memcpy(elf + ph->p_offset + i, &x, 4);
    }
}

static bool same_record(const rvt_tv_record *a, const rvt_tv_record *b) {
    return a->offset == b->offset && a->opcode == b->opcode && a->id == b->id && a->memop == b->memop &&
           a->size == b->size && a->result == b->result && a->has_data == b->has_data && a->reg == b->reg &&
           a->insn == b->insn && a->addr == b->addr && a->value == b->value;
}

/* The reader's two ways agree: whole chunks read a group at a time (the
 * in-place decoding) and single bytes read a record at a time (the careful
 * path) give the same records and end in the same error. */
static void compare_reading_ways(const rvt_tv_params *p, const uint8_t *data, size_t size, size_t cut) {
    rvt_tv_reader *fast, *careful;
    if (rvt_tv_reader_new(&fast, p, NULL))
        return;
    if (rvt_tv_reader_new(&careful, p, NULL)) {
        rvt_tv_reader_free(fast);
        return;
    }
    rvt_diag dfast = {{0}}, dcareful = {{0}};
    int rcfast = 0, rccareful = 0;
    size_t fed = 0; /* bytes fed to the careful reader */
    rvt_tv_record batch[64], one;
    for (int chunk = 0; chunk < 2 && rcfast >= 0; chunk++) {
        size_t from = chunk ? cut : 0, to = chunk ? size : cut;
        rvt_tv_reader_feed(fast, data + from, to - from);
        long n;
        while ((n = rvt_tv_reader_read(fast, batch, 64, &dfast)) > 0) {
            for (long i = 0; i < n; i++) {
                /* the careful reader up to its next record */
                while ((rccareful = rvt_tv_reader_next(careful, &one, &dcareful)) == 0 && fed < size)
                    rvt_tv_reader_feed(careful, data + fed++, 1);
                if (rccareful != 1 || !same_record(&one, &batch[i]))
                    __builtin_trap();
                if (i + 1 < n && batch[i].opcode <= RVT_TV_END)
                    __builtin_trap(); /* a read ends after a group boundary */
            }
        }
        rcfast = (int)n;
    }
    if (rcfast == 0)
        rcfast = rvt_tv_reader_finish(fast, &dfast);
    while ((rccareful = rvt_tv_reader_next(careful, &one, &dcareful)) == 0 && fed < size)
        rvt_tv_reader_feed(careful, data + fed++, 1);
    if (rccareful == 1)
        __builtin_trap(); /* the careful reader found a record the fast one did not */
    if (rccareful == 0)
        rccareful = rvt_tv_reader_finish(careful, &dcareful);
    if (rcfast != rccareful || (rcfast && strcmp(dfast.msg, dcareful.msg)))
        __builtin_trap();
    rvt_tv_reader_free(fast);
    rvt_tv_reader_free(careful);
}

typedef struct {
    bool ok; /* the verifier ran */
    int rc;
    rvt_tv_verify_result res;
    char msg[sizeof(((rvt_diag *)0)->msg)];
} verified;

typedef struct {
    const uint8_t *data;
    size_t size, at, chunk;
} chunks;

enum { MAX_CHUNKS = 32 };

static long read_chunks(void *user, uint8_t *buf, size_t size, rvt_diag *d) {
    (void)d;
    chunks *c = user;
    size_t n = c->size - c->at;
    if (n > c->chunk)
        n = c->chunk;
    if (n > size)
        n = size;
    memcpy(buf, c->data + c->at, n);
    c->at += n;
    return (long)n;
}

static void verify_once(const rvt_tv_params *p, const uint8_t *data, size_t size, size_t cut, bool pull,
                        verified *out) {
    memset(out, 0, sizeof *out);
    rvt_image *img = NULL;
    rvt_machine *m = NULL;
    rvt_tv_verifier *v = NULL;
    rvt_diag d = {{0}};
    rvt_machine_config cfg;
    rvt_machine_config_default(&cfg);
    cfg.nram = 1;
    cfg.ram[0] = (rvt_mem_region){CODE_BASE, 2 * CODE_BYTES};
    rvt_tv_verify_options o = {.max_errors = 0};
    if (rvt_image_new(&img) == 0 && rvt_image_load_elf_mem(img, "fuzz.elf", elf, sizeof elf, 0, &d) == 0 &&
        rvt_machine_new(&m, &cfg, img, &d) == 0 && rvt_tv_verifier_new(&v, p, &o, m, img, &d) == 0) {
        out->ok = true;
        if (pull) {
            /* Each chunk is a hand-over between the verifier's two
             * threads, which costs far more than reading it: at most
             * MAX_CHUNKS of them (small inputs still come byte by byte). */
            size_t least = (size + MAX_CHUNKS - 1) / MAX_CHUNKS;
            chunks c = {data, size, 0, cut > least ? cut : least ? least : 1};
            out->rc = rvt_tv_verifier_read_all(v, read_chunks, &c, &d);
        } else {
            out->rc = rvt_tv_verifier_feed(v, data, cut, &d);
            if (!out->rc)
                out->rc = rvt_tv_verifier_feed(v, data + cut, size - cut, &d);
            if (!out->rc)
                out->rc = rvt_tv_verifier_finish(v, &d);
        }
        out->res = *rvt_tv_verifier_result(v);
        memcpy(out->msg, d.msg, sizeof out->msg);
    }
    rvt_tv_verifier_free(v);
    rvt_machine_free(m);
    rvt_image_free(img);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!elf[0])
        build_elf();
    rvt_tv_params p;
    rvt_tv_params_default(&p, 64);
    size_t cut = size ? data[0] % (size + 1) : 0;

    rvt_tv_reader *r;
    if (rvt_tv_reader_new(&r, &p, NULL) == 0) {
        rvt_tv_record rec;
        rvt_diag d;
        int rc = 0;
        rvt_tv_reader_feed(r, data, cut);
        while ((rc = rvt_tv_reader_next(r, &rec, &d)) == 1) {
            char text[160];
            rvt_tv_format_record(&p, &rec, text, sizeof text);
        }
        if (rc == 0) {
            rvt_tv_reader_feed(r, data + cut, size - cut);
            while ((rc = rvt_tv_reader_next(r, &rec, &d)) == 1)
                ;
        }
        if (rc == 0)
            rvt_tv_reader_finish(r, &d);
        rvt_tv_reader_free(r);
    }

    compare_reading_ways(&p, data, size, cut);

    /* The verifier fed in two chunks and reading in chunks of `cut` bytes
     * (at least a MAX_CHUNKS-th of the input) itself must end alike. */
    verified fed, read;
    verify_once(&p, data, size, cut, false, &fed);
    verify_once(&p, data, size, cut, true, &read);
    if (fed.ok && read.ok &&
        (fed.rc != read.rc || fed.res.groups != read.res.groups || fed.res.steps != read.res.steps ||
         fed.res.divergences != read.res.divergences || (fed.rc && strcmp(fed.msg, read.msg))))
        abort();
    return 0;
}
