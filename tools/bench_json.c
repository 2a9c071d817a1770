/* gpgpu-bench --json FILE: google-benchmark's JSON shape (gpgpu_bench.h says which fields),
 * the context block written before the first record, and JSON's numbers and strings. */
#include "gpgpu_bench.h"

#include <math.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* JSON has no NaN or infinity (a timer that reports 0 ns gives one). */
void bench_json_number(FILE *f, double value)
{
    if (isfinite(value))
        fprintf(f, "%.3f", value);
    else
        fputs("null", f);
}

void bench_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s != '\0'; s++) {
        unsigned char ch = (unsigned char)*s;

        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

void bench_json_field(FILE *f, const char *key, double value)
{
    if (isfinite(value))
        fprintf(f, ", \"%s\": %.6g", key, value);
    else
        fprintf(f, ", \"%s\": null", key);
}

void bench_json_text(FILE *f, const char *key, const char *value)
{
    fprintf(f, ", \"%s\": ", key);
    bench_json_string(f, value);
}

/* The context block: where and how the run was made (google-benchmark's "context"). */
static void json_context(bench *b)
{
    FILE *f = b->json;
    char date[40] = "", host[256] = "";
    time_t now = time(NULL);
    struct tm tm;

    /* ISO 8601 with the offset as +HH:MM, as google-benchmark writes it. */
    if (localtime_r(&now, &tm) != NULL && strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S%z",
                                                   &tm) == 24) {
        memmove(date + 23, date + 22, 3);
        date[22] = ':';
    }
    if (gethostname(host, sizeof(host) - 1) != 0)
        host[0] = '\0';
    fputs("{\n  \"context\": {\"date\": ", f);
    bench_json_string(f, date);
    bench_json_text(f, "host_name", host);
    bench_json_text(f, "executable", b->argc > 0 ? b->argv[0] : "gpgpu-bench");
    char command[2048] = "";
    for (int i = 0, used = 0; i < b->argc && used < (int)sizeof(command); i++)
        used += snprintf(command + used, sizeof(command) - (size_t)used, "%s%s", i ? " " : "",
                         b->argv[i]);
    bench_json_text(f, "command", command);
    bench_json_text(f, "library_version", gpgpu_version());
    bench_json_text(f, "device", b->info.renderer != NULL ? b->info.renderer : "");
    /* Vulkan names its driver and version apart; GL's version string carries them. */
    const char *driver = b->info.backend != NULL && strcmp(b->info.backend, "vulkan") == 0
                             ? b->info.vendor : b->info.version;
    bench_json_text(f, "driver", driver != NULL ? driver : "");
    bench_json_text(f, "api_version", b->info.version != NULL ? b->info.version : "");
    bench_json_text(f, "backend", b->info.backend != NULL ? b->info.backend : "");
    bench_json_text(f, "platform", b->info.platform != NULL ? b->info.platform : "");
    bench_json_text(f, "timer", b->wall_clock ? "wall" : "gpu");
    bench_json_field(f, "copy_gbps", b->copy_gbps);
    fprintf(f, ", \"runs\": %d, \"warmup\": %d, \"warmup_ms\": %d, \"burst_ms\": %d},\n",
            b->opt->runs, b->opt->warmup, b->opt->warmup_ms, b->opt->burst_ms);
    fputs("  \"benchmarks\": [", f);
    b->json_opened = true;
}

/* One result row's record: its rates as google-benchmark's counters, beside the case,
 * algorithm and size that bench/compare.py joins on. */
void bench_json_row(bench *b, const bench_row *r, double gbps, double gkeys)
{
    FILE *f = b->json;
    char name[160];

    snprintf(name, sizeof(name), "%s/%s/%zu", r->name, r->algo, r->n);
    bench_json_begin(b, name, r->t);
    bench_json_text(f, "case", r->name);
    bench_json_text(f, "algo", r->algo);
    fprintf(f, ", \"n\": %zu", r->n);
    bench_json_field(f, "bytes_per_second", gbps * 1e9);
    bench_json_field(f, "items_per_second", gkeys * 1e9);
    bench_json_field(f, "ratio_to_copy", r->ratio);
    if (!isnan(r->copy_ns))
        bench_json_field(f, "copy_time", r->copy_ns);
    if (r->check != NULL)
        bench_json_text(f, "check", r->check);
    bench_json_end(b);
}

void bench_json_begin(bench *b, const char *name, timing t)
{
    FILE *f = b->json;

    if (!b->json_opened)
        json_context(b);
    fputs(b->json_empty ? "\n    {\"name\": " : ",\n    {\"name\": ", f);
    b->json_empty = false;
    bench_json_string(f, name);
    bench_json_text(f, "run_name", name);
    fprintf(f, ", \"run_type\": \"iteration\", \"repetitions\": 1, \"repetition_index\": 0,"
               " \"threads\": 1, \"iterations\": %d", b->opt->runs);
    /* real_time is the time rates come from (the GPU timer, as google-benchmark's manual
     * time; the wall clock where the timer misses the work), cpu_time the host's wall
     * clock around one call, its wait included; spread the GPU times' range over their
     * median (null where the timer misses the work). */
    bench_json_field(f, "real_time", bench_rate_ns(b, t));
    bench_json_field(f, "cpu_time", t.wall_ns);
    fputs(", \"time_unit\": \"ns\"", f);
    bench_json_field(f, "gpu_time", t.median_ns);
    bench_json_field(f, "min_time", t.min_ns);
    bench_json_field(f, "max_time", t.max_ns);
    bench_json_field(f, "wall_time", t.wall_ns);
    bench_json_field(f, "spread", b->wall_clock ? NAN : (t.max_ns - t.min_ns) / t.median_ns);
}

void bench_json_end(bench *b)
{
    bench_json_field(b->json, "copy_gbps", b->copy_gbps);
    bench_json_text(b->json, "timer", b->wall_clock ? "wall" : "gpu");
    bench_json_text(b->json, "backend", b->info.backend != NULL ? b->info.backend : "");
    fputc('}', b->json);
}

bool bench_json_close(bench *b)
{
    if (!b->json_opened)
        json_context(b);
    fputs(b->json_empty ? "]\n}\n" : "\n  ]\n}\n", b->json);
    return (ferror(b->json) | fclose(b->json)) == 0;
}
