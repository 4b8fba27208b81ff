/* Runs the real dama-leds firmware (ELF built with avr-gcc) under simavr, with its UART on a pseudo-terminal
 * so a host program talks to it as to a USB serial board, and reports what the LED pins actually output.
 *
 *   simavr_harness FIRMWARE.elf LINK_PATH OUT_FILE
 *
 * LINK_PATH becomes a symlink to the pty slave (the "serial port"); the harness writes one line to OUT_FILE
 * each time the firmware finishes sending LEDs:
 *   ws <ms> <96 hex bytes>          a WS2812 frame decoded from the pulse widths on PD6 (G,R,B per LED)
 *   mx <ms> <intensity> <8 hex bytes>   the MAX7219 row registers 1..8, decoded from PB3/PB5/PB2
 * <ms> is simulated time. The simulation is paced to real time so blinking is seen at its real rate.
 * Written for this project after simavr's uart_pty example (which creates /tmp/simavr-uart0; we need one
 * pty per test instead, and byte pacing at the line rate). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pty.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <avr_ioport.h>
#include <avr_uart.h>
#include <sim_avr.h>
#include <sim_elf.h>
#include <sim_irq.h>

#define FREQ 16000000UL
#define CYCLES_PER_BYTE (FREQ / 11520) /* 10 bits at 115200 baud */

static avr_t *avr;
static int master = -1;
static FILE *out;
static int uart_xoff;
static int booted; /* the firmware has sent its first byte (the banner): its UART receiver is on */

static double sim_ms(void) { return (double)avr->cycle * 1000.0 / FREQ; }

/* ------------------------------------------------------------------------------ UART <-> pty */

static void uart_out_cb(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)param;
    uint8_t c = (uint8_t)value;
    booted = 1;
    if (write(master, &c, 1) < 0 && errno != EAGAIN) perror("harness: write pty");
}

static void xon_cb(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq; (void)value; (void)param;
    uart_xoff = 0;
}

static void xoff_cb(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq; (void)param;
    if (value) uart_xoff = 1;
}

/* ------------------------------------------------------------------------------ WS2812 decoder */

static uint64_t ws_rise, ws_fall;
static uint8_t ws_bytes[96];
static int ws_bits;

static void ws_pin_cb(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq; (void)param;
    uint64_t now = avr->cycle;
    if (value) {
        if (now - ws_fall > 800) ws_bits = 0; /* > 50 us low: a reset, a new frame starts */
        ws_rise = now;
        return;
    }
    ws_fall = now;
    if (ws_bits >= 96 * 8) return;
    int one = (now - ws_rise) > 9; /* 0: ~5 cycles high, 1: ~12 cycles high */
    int byte = ws_bits / 8;
    ws_bytes[byte] = (uint8_t)(ws_bytes[byte] << 1 | one);
    if (++ws_bits == 96 * 8) {
        fprintf(out, "ws %.1f ", sim_ms());
        for (int i = 0; i < 96; i++) fprintf(out, "%02x", ws_bytes[i]);
        fprintf(out, "\n");
        fflush(out);
    }
}

/* ------------------------------------------------------------------------------ MAX7219 decoder */

static uint8_t mx_din, mx_rows[8], mx_intensity;
static uint16_t mx_word;
static int mx_nbits, mx_cs_low;

static void mx_din_cb(struct avr_irq_t *irq, uint32_t value, void *param) { (void)irq; (void)param; mx_din = value & 1; }

static void mx_clk_cb(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq; (void)param;
    if (value && mx_cs_low) {
        mx_word = (uint16_t)(mx_word << 1 | mx_din);
        mx_nbits++;
    }
}

static void mx_cs_cb(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq; (void)param;
    if (!value) {
        mx_cs_low = 1;
        mx_nbits = 0;
        return;
    }
    mx_cs_low = 0;
    if (mx_nbits != 16) return;
    uint8_t reg = (uint8_t)(mx_word >> 8 & 0x0f), data = (uint8_t)mx_word;
    if (reg == 0x0a) mx_intensity = data;
    if (reg >= 1 && reg <= 8) {
        mx_rows[reg - 1] = data;
        if (reg == 8) { /* the firmware writes rows 1..8 in order: row 8 completes a frame */
            fprintf(out, "mx %.1f %d ", sim_ms(), mx_intensity);
            for (int i = 0; i < 8; i++) fprintf(out, "%02x", mx_rows[i]);
            fprintf(out, "\n");
            fflush(out);
        }
    }
}

/* ------------------------------------------------------------------------------ main loop */

static double wall_ms(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) * 1000.0 + (double)(t.tv_nsec - t0->tv_nsec) / 1e6;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s FIRMWARE.elf LINK_PATH OUT_FILE\n", argv[0]);
        return 2;
    }
    elf_firmware_t fw;
    memset(&fw, 0, sizeof fw);
    if (elf_read_firmware(argv[1], &fw) != 0) {
        fprintf(stderr, "harness: cannot read %s\n", argv[1]);
        return 1;
    }
    avr = avr_make_mcu_by_name("atmega328p");
    if (!avr) return 1;
    avr_init(avr);
    avr->frequency = FREQ;
    avr_load_firmware(avr, &fw);
    avr->log = 0;

    out = fopen(argv[3], "w");
    if (!out) { perror("harness: out file"); return 1; }

    int slave;
    char name[128];
    if (openpty(&master, &slave, name, NULL, NULL) < 0) { perror("harness: openpty"); return 1; }
    struct termios tio;
    tcgetattr(slave, &tio);
    cfmakeraw(&tio);
    tcsetattr(slave, TCSANOW, &tio);
    fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK);
    unlink(argv[2]);
    if (symlink(name, argv[2]) < 0) { perror("harness: symlink"); return 1; }

    uint32_t flags = 0; /* no stdout echo of the UART, no usleep while the firmware polls */
    avr_ioctl(avr, AVR_IOCTL_UART_SET_FLAGS('0'), &flags);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUTPUT), uart_out_cb, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XON), xon_cb, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XOFF), xoff_cb, NULL);
    avr_irq_t *uart_in = avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_INPUT);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('D'), 6), ws_pin_cb, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('B'), 3), mx_din_cb, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('B'), 5), mx_clk_cb, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('B'), 2), mx_cs_cb, NULL);

    fprintf(stderr, "harness: %s on %s -> %s\n", argv[1], name, argv[2]);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    uint8_t pending[4096];
    int npending = 0, next = 0;
    uint64_t next_byte = 0;
    for (unsigned long step = 0;; step++) {
        int state = avr_run(avr);
        if (state == cpu_Done || state == cpu_Crashed) {
            fprintf(stderr, "harness: firmware stopped (state %d)\n", state);
            return 1;
        }
        if (step % 512) continue;
        if (next == npending) {
            ssize_t n = read(master, pending, sizeof pending);
            if (n > 0) { npending = (int)n; next = 0; }
            else if (n == 0 || (n < 0 && errno != EAGAIN && errno != EIO)) break;
        }
        /* one byte per byte-time at the line rate, as a real UART delivers them; none before the firmware
         * has switched its receiver on, which simavr would drop (a host that opens the port at once and
         * writes would otherwise lose the start of its first line on a busy machine) */
        if (booted && next < npending && !uart_xoff && avr->cycle >= next_byte) {
            avr_raise_irq(uart_in, pending[next++]);
            next_byte = avr->cycle + CYCLES_PER_BYTE;
        }
        double ahead = sim_ms() - wall_ms(&t0);
        if (ahead > 2.0) usleep((useconds_t)(ahead * 1000));
    }
    return 0;
}
