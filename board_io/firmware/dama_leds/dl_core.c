/* Protocol core: line assembly, checksum check, command execution, replies. No hardware access, so the
 * same code runs on the ATmega328P and could be compiled on a PC. */
#include <string.h>

#include "dama_leds.h"

struct dl_state dl_state;

static char line[DL_LINE_MAX + 1];
static uint8_t len;
static uint8_t overflow, binary;

static const char hexdig[] = "0123456789ABCDEF"; /* checksums */
static const char hexlow[] = "0123456789abcdef"; /* colours, as the host writes them */

void dl_send_line(const char *body)
{
    uint8_t x = 0;
    for (const char *p = body; *p; p++) {
        x ^= (uint8_t)*p;
        dl_hw_putc(*p);
    }
    dl_hw_putc('*');
    dl_hw_putc(hexdig[x >> 4]);
    dl_hw_putc(hexdig[x & 15]);
    dl_hw_putc('\n');
}

static void send_hello(uint8_t boot)
{
    static char buf[96];
    strcpy(buf, "dama-leds 1 leds=32 ");
    strcat(buf, dl_hw_caps);
    if (boot) strcat(buf, " boot=1");
    dl_send_line(buf);
}

void dl_core_init(void)
{
    memset(&dl_state, 0, sizeof dl_state);
    dl_state.brightness = 64;
    len = overflow = binary = 0;
    send_hello(1); /* the boot banner: tells a connected host that the frame was lost */
}

uint8_t dl_core_receiving(void) { return len != 0 || overflow; }

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static int parse_hex6(const char *s, uint8_t out[3])
{
    for (uint8_t i = 0; i < 6; i++)
        if (hexval(s[i]) < 0) return 0;
    if (s[6]) return 0;
    for (uint8_t i = 0; i < 3; i++) out[i] = (uint8_t)(hexval(s[2 * i]) << 4 | hexval(s[2 * i + 1]));
    return 1;
}

/* "d4" -> 13; -1 for light squares and anything else */
static int parse_square(const char *s)
{
    if (s[0] < 'a' || s[0] > 'h' || s[1] < '1' || s[1] > '8' || s[2]) return -1;
    uint8_t f = (uint8_t)(s[0] - 'a'), r = (uint8_t)(s[1] - '1');
    if ((f + r) & 1) return -1;
    return r * 4 + f / 2;
}

static int parse_mode_word(const char *s)
{
    if (!strcmp(s, "off")) return DL_OFF;
    if (!strcmp(s, "on")) return DL_ON;
    if (!strcmp(s, "blinkslow")) return DL_SLOW;
    if (!strcmp(s, "blinkfast")) return DL_FAST;
    return -1;
}

static int parse_mode_letter(char c)
{
    switch (c) {
    case '.': return DL_OFF;
    case 'o': return DL_ON;
    case 's': return DL_SLOW;
    case 'f': return DL_FAST;
    default: return -1;
    }
}

static void reply_state(void)
{
    static const char letters[] = ".osf";
    static char buf[6 + 32 + 1 + 192 + 1];
    char *p = buf;
    memcpy(p, "state ", 6);
    p += 6;
    for (uint8_t i = 0; i < DL_SQUARES; i++) *p++ = letters[dl_state.mode[i] & 3];
    *p++ = ' ';
    for (uint8_t i = 0; i < DL_SQUARES; i++)
        for (uint8_t k = 0; k < 3; k++) {
            *p++ = hexlow[dl_state.rgb[i][k] >> 4];
            *p++ = hexlow[dl_state.rgb[i][k] & 15];
        }
    *p = 0;
    dl_send_line(buf);
}

/* Runs one checked command; returns the error reason, or 0 after it has replied itself. */
static const char *execute(char *body)
{
    char *argv[5];
    uint8_t argc = 0;
    for (char *tok = strtok(body, " "); tok; tok = strtok(0, " ")) {
        if (argc == 5) return "syntax";
        argv[argc++] = tok;
    }
    if (!argc) return "syntax";
    const char *cmd = argv[0];

    if (!strcmp(cmd, "hello")) {
        if (argc != 2 || strcmp(argv[1], "1")) return "version";
        send_hello(0);
        return 0;
    }
    if (!strcmp(cmd, "ping")) {
        if (argc != 1) return "syntax";
    } else if (!strcmp(cmd, "state")) {
        reply_state();
        return 0;
    } else if (!strcmp(cmd, "clear")) {
        memset(dl_state.mode, DL_OFF, sizeof dl_state.mode);
        dl_hw_show();
    } else if (!strcmp(cmd, "bright")) {
        if (argc != 2) return "range";
        uint16_t v = 0;
        uint8_t n = 0;
        for (const char *p = argv[1]; *p; p++, n++) {
            if (*p < '0' || *p > '9' || n >= 3) return "range";
            v = (uint16_t)(v * 10 + (uint16_t)(*p - '0'));
        }
        if (!n || v > 255) return "range";
        dl_state.brightness = (uint8_t)v;
        dl_hw_show();
    } else if (!strcmp(cmd, "set")) {
        if (argc != 3 && argc != 4) return "syntax";
        int sq = parse_square(argv[1]);
        if (sq < 0) return "square";
        int mode = parse_mode_word(argv[2]);
        if (mode < 0) return "state";
        uint8_t rgb[3] = {255, 255, 255};
        if (argc == 4 && !parse_hex6(argv[3], rgb)) return "colour";
        dl_state.mode[sq] = (uint8_t)mode;
        memcpy(dl_state.rgb[sq], rgb, 3);
        dl_hw_show();
    } else if (!strcmp(cmd, "frame")) {
        if (argc != 2 && argc != 3) return "syntax";
        uint8_t modes[DL_SQUARES];
        if (strlen(argv[1]) != DL_SQUARES) return "length";
        for (uint8_t i = 0; i < DL_SQUARES; i++) {
            int m = parse_mode_letter(argv[1][i]);
            if (m < 0) return "state";
            modes[i] = (uint8_t)m;
        }
        if (argc == 3) { /* validate everything before changing anything: a bad frame changes nothing */
            if (strlen(argv[2]) != DL_SQUARES * 6) return "length";
            for (uint8_t i = 0; i < DL_SQUARES * 6; i++)
                if (hexval(argv[2][i]) < 0) return "colour";
            for (uint8_t i = 0; i < DL_SQUARES; i++)
                for (uint8_t k = 0; k < 3; k++)
                    dl_state.rgb[i][k] = (uint8_t)(hexval(argv[2][6 * i + 2 * k]) << 4 |
                                                   hexval(argv[2][6 * i + 2 * k + 1]));
        } else {
            memset(dl_state.rgb, 255, sizeof dl_state.rgb);
        }
        memcpy(dl_state.mode, modes, sizeof modes);
        dl_hw_show();
    } else {
        return "unknown";
    }
    dl_send_line("ok");
    return 0;
}

static void end_of_line(void)
{
    const char *err = 0;
    if (overflow) {
        err = "toolong";
    } else if (len == 0) {
        return; /* empty line: the host's resync newline */
    } else if (binary) {
        err = "binary";
    } else if (len < 3 || line[len - 3] != '*' || hexval(line[len - 2]) < 0 || hexval(line[len - 1]) < 0) {
        err = "checksum";
    } else {
        uint8_t x = 0;
        for (uint8_t i = 0; i < len - 3; i++) x ^= (uint8_t)line[i];
        if (x != (uint8_t)(hexval(line[len - 2]) << 4 | hexval(line[len - 1]))) {
            err = "checksum";
        } else {
            line[len - 3] = 0;
            err = execute(line);
        }
    }
    if (err) {
        static char buf[16];
        strcpy(buf, "err ");
        strcat(buf, err);
        dl_send_line(buf);
    }
}

void dl_core_byte(uint8_t c)
{
    if (c == '\n') {
        end_of_line();
        len = overflow = binary = 0;
    } else if (c == '\r') {
        /* CRLF from terminals: ignored */
    } else if (overflow) {
        /* drop the rest of an over-long line */
    } else if (len >= DL_LINE_MAX) {
        overflow = 1;
    } else {
        if (c < 0x20 || c > 0x7e) binary = 1;
        line[len++] = (char)c;
    }
}

void dl_setup(void)
{
    dl_hw_init();
    dl_core_init();
    dl_hw_show();
}

void dl_loop(void)
{
    int c;
    while ((c = dl_hw_getc()) >= 0) dl_core_byte((uint8_t)c);
    if (!dl_core_receiving()) dl_hw_poll();
}
