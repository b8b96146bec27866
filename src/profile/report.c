/* The HTML report: one page a user opens first, with everything inline so
 * that it works from a file, offline, and can be mailed as it is. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "profile_internal.h"

static int put_escaped(FILE *f, const char *s) {
    for (; *s; s++) {
        const char *e = *s == '<' ? "&lt;" : *s == '>' ? "&gt;" : *s == '&' ? "&amp;" : *s == '"' ? "&quot;" : NULL;
        if (e ? fputs(e, f) == EOF : fputc(*s, f) == EOF)
            return 1;
    }
    return 0;
}

/* Flame-graph geometry: each frame spans its share of the root's
 * instructions, children in name order above their parent. */
enum { GRAPH_WIDTH = 1200, ROW = 17 };

typedef struct flame_node {
    uint64_t total;  /* self plus everything called from it */
    uint64_t x;      /* instructions to its left at its depth */
    uint32_t depth;
} flame_node;

typedef struct sibling {
    uint32_t parent, index;
    const char *name;
} sibling;

static int by_parent_name(const void *a, const void *b) {
    const sibling *x = a, *y = b;
    if (x->parent != y->parent)
        return x->parent < y->parent ? -1 : 1;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->index < y->index ? -1 : 1);
}

/* Frames are made after their parent, so a parent's index is always
 * smaller than its children's: totals add up from the last frame back,
 * positions and depths go forward. */
static flame_node *flame_layout(const rvt_profile *p, uint32_t *max_depth) {
    size_t n = p->nframes;
    flame_node *node = calloc(n, sizeof *node);
    sibling *order = malloc(n * sizeof *order);
    uint64_t *next_x = calloc(n, sizeof *next_x); /* per parent: where its next child starts */
    if (!node || !order || !next_x) {
        free(node);
        free(order);
        free(next_x);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        node[i].total = p->frames[i].self;
    for (size_t i = n; i-- > 1;)
        node[p->frames[i].parent].total += node[i].total;
    for (size_t i = 1; i < n; i++)
        order[i - 1] = (sibling){p->frames[i].parent, (uint32_t)i, p->frames[i].sym};
    qsort(order, n - 1, sizeof *order, by_parent_name);
    /* siblings are adjacent in `order`: each gets its offset within its
     * parent, made absolute below in index order (parents first) */
    for (size_t k = 0; k + 1 < n; k++) {
        uint32_t i = order[k].index, parent = order[k].parent;
        node[i].x = next_x[parent];
        next_x[parent] += node[i].total;
    }
    *max_depth = 0;
    for (size_t i = 1; i < n; i++) { /* children's x was relative to their parent */
        uint32_t parent = p->frames[i].parent;
        node[i].x += parent ? node[parent].x : 0;
        node[i].depth = parent ? node[parent].depth + 1 : 0;
        if (node[i].depth > *max_depth)
            *max_depth = node[i].depth;
    }
    free(order);
    free(next_x);
    return node;
}

/* A warm colour that stays the same for a name across reports. */
static unsigned name_hue(const char *s) {
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

static int write_flame_graph(const rvt_profile *p, FILE *f) {
    uint32_t max_depth = 0;
    flame_node *node = p->nframes > 1 ? flame_layout(p, &max_depth) : NULL;
    if (p->nframes > 1 && !node)
        return RVT_E_NOMEM;
    uint64_t root = node ? node[0].total : 0;
    unsigned height = (max_depth + 1) * ROW + 4;
    int rc = fprintf(f, "<svg id=\"flame\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%u\" "
                        "viewBox=\"0 0 %d %u\" data-total=\"%" PRIu64 "\">\n",
                     GRAPH_WIDTH, height, GRAPH_WIDTH, height, root) < 0;
    for (size_t i = 1; node && i < p->nframes && !rc; i++) {
        /* a frame under a fiftieth of a pixel stays too narrow to see even
         * zoomed on its parent, in all but the deepest zooms */
        if (50 * node[i].total * GRAPH_WIDTH < root)
            continue;
        double x = (double)node[i].x * GRAPH_WIDTH / (double)root, w = (double)node[i].total * GRAPH_WIDTH / (double)root;
        unsigned y = height - (node[i].depth + 1) * ROW, h = name_hue(p->frames[i].sym);
        rc |= fprintf(f, "<g class=\"fr\" data-x=\"%" PRIu64 "\" data-w=\"%" PRIu64 "\" data-d=\"%u\"><title>", node[i].x,
                      node[i].total, node[i].depth) < 0;
        rc |= put_escaped(f, p->frames[i].sym);
        rc |= fprintf(f, " (%" PRIu64 " instructions, %.2f%%; self %" PRIu64 ")</title>"
                         "<rect x=\"%.2f\" y=\"%u\" width=\"%.2f\" height=\"%d\" fill=\"hsl(%u,%u%%,%u%%)\"/>"
                         "<text x=\"%.2f\" y=\"%u\">",
                      node[i].total, 100.0 * (double)node[i].total / (double)root, p->frames[i].self, x, y, w, ROW - 1,
                      h % 50, 60 + (h >> 8) % 30, 50 + (h >> 16) % 15, x + 3, y + ROW - 5) < 0;
        size_t fits = w > 20 ? (size_t)((w - 6) / 7) : 0; /* about 7 px per character */
        if (fits) {
            char shown[256];
            snprintf(shown, sizeof shown, "%s", p->frames[i].sym);
            if (strlen(shown) > fits)
                strcpy(shown + (fits > 2 ? fits - 2 : 0), "..");
            rc |= put_escaped(f, shown);
        }
        rc |= fputs("</text></g>\n", f) == EOF;
    }
    free(node);
    return rc | (fputs("</svg>\n", f) == EOF);
}

/* The instruction at `addr` while it still belongs to function `name`. */
static const rvt_insn *insn_in(rvt_profile *p, const char *name, uint64_t addr) {
    uint64_t off;
    const rvt_insn *in = rvt_image_insn(p->img, addr);
    const char *sym = rvt_image_symbolize(p->img, addr, &off);
    return in && sym && !strcmp(sym, name) ? in : NULL;
}

static int write_hot_listing(rvt_profile *p, FILE *f, const char *name) {
    uint64_t addr;
    if (!name || name == rvt_profile_unknown || !rvt_image_symbol_addr(p->img, name, &addr))
        return fputs("<p>No symbol to annotate.</p>\n", f) == EOF;
    rvt_disasm_ctx dis;
    rvt_disasm_init(&dis, rvt_image_xlen(p->img), 0);
    uint64_t hottest = 1;
    enum { MAX_LISTED = 20000 };
    const rvt_insn *in;
    uint64_t a = addr;
    for (unsigned k = 0; k < MAX_LISTED && (in = insn_in(p, name, a)) != NULL; k++, a += in->len) {
        const addr_slot *s = rvt_profile_find(p, a); /* the scale of the heat colours */
        if (s && s->count > hottest)
            hottest = s->count;
    }
    int rc = 0;
    if (!rvt_image_has_source_lines(p->img))
        rc |= fputs("<p>The program has no DWARF line information (built without -g?): the instructions are "
                    "shown without source lines.</p>\n", f) == EOF;
    rc |= fputs("<table class=\"listing\"><tr><th>count</th><th>address</th><th>instruction</th><th>source</th></tr>\n",
                f) == EOF;
    for (unsigned k = 0; k < MAX_LISTED && !rc && (in = insn_in(p, name, addr)) != NULL; k++) {
        const addr_slot *s = rvt_profile_find(p, addr);
        uint64_t c = s ? s->count : 0;
        char text[160], where[320] = "";
        rvt_disasm(&dis, in, NULL, addr, text, sizeof text);
        const char *file;
        unsigned line;
        if (rvt_image_source_line(p->img, addr, &file, &line)) {
            const char *base = strrchr(file, '/');
            snprintf(where, sizeof where, "%s:%u", base ? base + 1 : file, line);
        }
        rc |= fprintf(f, "<tr style=\"background:rgba(255,80,0,%.2f)\"><td>%" PRIu64 "</td><td>%" PRIx64 "</td><td>",
                      c ? 0.08 + 0.6 * (double)c / (double)hottest : 0.0, c, addr) < 0;
        rc |= put_escaped(f, text);
        rc |= fputs("</td><td>", f) == EOF;
        rc |= put_escaped(f, where);
        rc |= fputs("</td></tr>\n", f) == EOF;
        addr += in->len;
    }
    return rc | (fputs("</table>\n", f) == EOF);
}

/* Zoom: a click makes a frame span the width (its ancestors too, the rest
 * is hidden) and puts #zoom=NAME in the address, so a link opens the page
 * zoomed there; search colours the frames whose name matches. */
static const char flame_script[] =
    "(function(){\n"
    "var svg=document.getElementById('flame');if(!svg)return;\n"
    "var W=svg.viewBox.baseVal.width,total=+svg.getAttribute('data-total');\n"
    "var frames=Array.prototype.slice.call(svg.querySelectorAll('g.fr'));\n"
    "frames.forEach(function(g){g.name=g.querySelector('title').textContent.replace(/ \\(\\d+ instructions.*$/,'');\n"
    " g.addEventListener('click',function(){zoom(g);try{history.replaceState(null,'','#zoom='+"
    "encodeURIComponent(g.name));}catch(e){}});});\n"
    "function label(g,w){var t=g.querySelector('text'),n=Math.floor((w-6)/7);\n"
    " t.textContent=w<20?'':(g.name.length>n?g.name.slice(0,Math.max(n-2,0))+'..':g.name);}\n"
    "function zoom(z){var zx=z?+z.getAttribute('data-x'):0,zw=z?+z.getAttribute('data-w'):total,"
    "zd=z?+z.getAttribute('data-d'):-1;\n"
    " frames.forEach(function(g){var x=+g.getAttribute('data-x'),w=+g.getAttribute('data-w'),"
    "d=+g.getAttribute('data-d');\n"
    "  var r=g.querySelector('rect'),t=g.querySelector('text');\n"
    "  var inside=x>=zx&&x+w<=zx+zw&&d>=zd,above=d<zd&&x<=zx&&x+w>=zx+zw;\n"
    "  if(!inside&&!above){g.style.display='none';return;}\n"
    "  g.style.display='';var nx=above?0:(x-zx)/zw*W,nw=above?W:w/zw*W;\n"
    "  r.setAttribute('x',nx.toFixed(2));r.setAttribute('width',nw.toFixed(2));\n"
    "  t.setAttribute('x',(nx+3).toFixed(2));label(g,nw);});\n"
    " document.getElementById('reset').style.visibility=z?'visible':'hidden';}\n"
    "document.getElementById('reset').addEventListener('click',function(){zoom(null);});\n"
    "document.getElementById('search').addEventListener('input',function(){\n"
    " var q=this.value,hit=0;frames.forEach(function(g){var m=q&&g.name.indexOf(q)>=0;\n"
    "  g.querySelector('rect').style.fill=m?'#d0f':'';if(m)hit+=+g.getAttribute('data-w');});\n"
    " document.getElementById('matched').textContent=q?'matched '+(100*hit/total).toFixed(2)+'% (nested frames count "
    "again)':'';});\n"
    "var m=/^#zoom=(.*)$/.exec(location.hash),start=null;\n"
    "if(m)frames.forEach(function(g){if(!start&&g.name===decodeURIComponent(m[1]))start=g;});\n"
    "zoom(start);\n"
    "})();\n";

int rvt_profile_write_html(rvt_profile *p, FILE *f, const rvt_report_info *info) {
    enum { TOP = 25 };
    rvt_profile_entry top[TOP];
    size_t nfun = rvt_profile_functions(p, top, TOP);
    int rc = fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>rvtrace report: ", f) ==
             EOF;
    rc |= put_escaped(f, info->program ? info->program : "");
    rc |= fputs("</title>\n<style>\n"
                "body{font-family:sans-serif;margin:1.5em;color:#222}\n"
                "table{border-collapse:collapse;margin-bottom:1em}\n"
                "td,th{padding:2px 10px;text-align:left;border-bottom:1px solid #ddd}\n"
                "td.n{text-align:right;font-variant-numeric:tabular-nums}\n"
                ".bar{background:#f60;height:10px}\n"
                "table.listing td{font-family:monospace;white-space:pre;border:none}\n"
                "#flame text{font:12px monospace;pointer-events:none}\n"
                "#flame g.fr{cursor:pointer}\n"
                "#flame g.fr:hover rect{stroke:#000;stroke-width:0.5}\n"
                "</style>\n</head>\n<body>\n<h1>rvtrace report</h1>\n<h2>Summary</h2>\n<table>\n",
                f) == EOF;
    const char *labels[] = {"program", "trace", "format"};
    const char *values[] = {info->program, info->trace, info->format};
    for (int i = 0; i < 3; i++) {
        if (!values[i])
            continue;
        rc |= fprintf(f, "<tr><th>%s</th><td>", labels[i]) < 0;
        rc |= put_escaped(f, values[i]);
        rc |= fputs("</td></tr>\n", f) == EOF;
    }
    rc |= fprintf(f, "<tr><th>instructions</th><td class=\"n\">%" PRIu64 "</td></tr>\n", p->total) < 0;
    rc |= fprintf(f, "<tr><th>functions run</th><td class=\"n\">%zu</td></tr>\n", nfun) < 0;
    if (info->trace_bytes) {
        rc |= fprintf(f, "<tr><th>trace bytes</th><td class=\"n\">%" PRIu64 "</td></tr>\n", info->trace_bytes) < 0;
        rc |= fprintf(f, "<tr><th>packets</th><td class=\"n\">%" PRIu64 "</td></tr>\n", info->packets) < 0;
        rc |= fprintf(f, "<tr><th>bits per instruction</th><td class=\"n\">%.3f</td></tr>\n",
                      p->total ? 8.0 * (double)info->trace_bytes / (double)p->total : 0.0) < 0;
    }
    rc |= fprintf(f, "<tr><th>trace losses</th><td class=\"n\">%" PRIu64 "%s</td></tr>\n</table>\n", info->losses,
                  info->losses ? " (the decoder resumed at the next synchronisation; see its messages)" : "") < 0;

    rc |= fputs("<h2>Hottest functions</h2>\n", f) == EOF;
    if (nfun > TOP)
        rc |= fprintf(f, "<p>The %d of %zu functions that retired the most instructions.</p>\n", TOP, nfun) < 0;
    rc |= fputs("<table>\n<tr><th>instructions</th><th>share</th><th></th><th>calls</th><th>function</th></tr>\n",
                f) == EOF;
    for (size_t i = 0; i < nfun && i < TOP; i++) {
        double share = p->total ? 100.0 * (double)top[i].count / (double)p->total : 0.0;
        char calls[48];
        rvt_profile_format_calls(&top[i], calls, sizeof calls);
        rc |= fprintf(f, "<tr><td class=\"n\">%" PRIu64 "</td><td class=\"n\">%.2f%%</td><td><div class=\"bar\" "
                         "style=\"width:%.0fpx\"></div></td><td class=\"n\">%s</td><td>",
                      top[i].count, share, 2 * share, calls) < 0;
        rc |= put_escaped(f, top[i].name);
        rc |= fputs("</td></tr>\n", f) == EOF;
    }
    rc |= fputs("</table>\n<h2>Flame graph</h2>\n<p>Call stacks, outermost at the bottom; width is instructions "
                "retired. Click a frame to zoom, <button id=\"reset\" type=\"button\">reset zoom</button> "
                "<label>search <input id=\"search\" type=\"text\" size=\"24\"></label> <span id=\"matched\"></span></p>\n",
                f) == EOF;
    int graph = write_flame_graph(p, f);
    if (graph == RVT_E_NOMEM)
        return graph;
    rc |= graph;
    const char *hot = NULL;
    for (size_t i = 0; i < nfun && i < TOP && !hot; i++)
        if (top[i].name != rvt_profile_unknown)
            hot = top[i].name;
    rc |= fputs("<h2>Hottest function", f) == EOF;
    if (hot) {
        rc |= fputs(": ", f) == EOF;
        rc |= put_escaped(f, hot);
    }
    rc |= fputs("</h2>\n", f) == EOF;
    rc |= write_hot_listing(p, f, hot);
    rc |= fprintf(f, "<script>\n%s</script>\n</body>\n</html>\n", flame_script) < 0;
    return rc ? RVT_E_IO : 0;
}
