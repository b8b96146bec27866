/* Encode a retirement stream (what a hart tells its trace encoder about
 * each retired instruction) as E-Trace te_inst packets, written in the
 * reference flow's raw transport: a header byte and the payload.
 *
 *   encode_etrace HW.scf ENCODER.ucf RETIREMENT OUT
 *
 * RETIREMENT is any format the library reads (the reference flow's encoder
 * input or spike CSV, spike's commit log, .rvti; plain or zstd). */
#include <inttypes.h>
#include <stdio.h>

#include <rvtrace/rvtrace.h>

typedef struct {
    FILE *out;
    uint64_t bytes;
} raw_stream;

/* The encoder hands each packet over as it makes it. */
static int write_packet(void *user, const rvt_te_inst *packet, const uint8_t *payload, size_t len) {
    raw_stream *s = user;
    (void)packet; /* its fields, for a consumer that wants them */
    s->bytes += 1 + len;
    return rvt_te_raw_write(s->out, payload, len);
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: %s HW.scf ENCODER.ucf RETIREMENT OUT\n", argv[0]);
        return 2;
    }
    rvt_diag diag = {{0}};
    rvt_etrace_params params;
    rvt_etrace_options options;
    rvt_retire_reader *reader = NULL;
    rvt_etrace_encoder *enc = NULL;
    raw_stream stream = {0};
    uint64_t records = 0, packets = 0;
    int rc;
    if ((rc = rvt_etrace_load_config(argv[1], argv[2], &params, &options, &diag)))
        goto fail;
    /* The text formats need the XLEN to size compressed jumps: the trace's
     * address width says it. */
    if ((rc = rvt_retire_reader_open(&reader, argv[3], RVT_FMT_AUTO, params.iaddress_width, &diag)))
        goto fail;
    if (!(stream.out = fopen(argv[4], "wb"))) {
        rc = RVT_E_IO;
        rvt_diag_set(&diag, rc, "cannot create %s", argv[4]);
        goto fail;
    }
    if ((rc = rvt_etrace_encoder_new(&enc, &params, &options, write_packet, &stream)))
        goto fail;
    rvt_retire batch[256];
    long n;
    while ((n = rvt_retire_reader_read(reader, batch, sizeof batch / sizeof *batch, &diag)) > 0) {
        records += (uint64_t)n;
        if ((rc = rvt_etrace_encoder_push(enc, batch, (size_t)n)))
            goto fail;
    }
    if (n < 0) {
        rc = (int)n;
        goto fail;
    }
    /* Reports the last instruction, ends the trace and frees the encoder. */
    rc = rvt_etrace_encoder_finish(enc, &packets);
    enc = NULL;
    if (rc)
        goto fail;
    rvt_retire_reader_close(reader);
    reader = NULL;
    if (fclose(stream.out)) {
        stream.out = NULL;
        rc = RVT_E_IO;
        rvt_diag_set(&diag, rc, "writing %s failed", argv[4]);
        goto fail;
    }
    printf("%" PRIu64 " records, %" PRIu64 " packets, %" PRIu64 " bytes\n", records, packets, stream.bytes);
    return 0;
fail:
    fprintf(stderr, "encode_etrace: %s%s%s\n", rvt_strerror(rc), diag.msg[0] ? ": " : "", diag.msg);
    if (enc)
        rvt_etrace_encoder_finish(enc, NULL);
    rvt_retire_reader_close(reader);
    if (stream.out)
        fclose(stream.out);
    return 1;
}
