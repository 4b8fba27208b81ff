/* dama-leds firmware: the protocol core (dl_core.c) and the hardware layer (dl_avr.c).
 * The protocol is described in docs/serial-protocol.md; board_io/leds/device.py is its Python twin. */
#ifndef DAMA_LEDS_H
#define DAMA_LEDS_H

#include <stdint.h>

/* Arduino IDE users with an 8x8 MAX7219 matrix instead of WS2812 LEDs: uncomment the next line. */
/* #define DL_MAX7219 */

#ifdef __cplusplus
extern "C" {
#endif

#define DL_PROTOCOL_VERSION 1
#define DL_SQUARES 32
#define DL_LINE_MAX 240 /* bytes before the newline, as MAX_LINE in protocol.py */

enum { DL_OFF = 0, DL_ON = 1, DL_SLOW = 2, DL_FAST = 3 };

/* What the board shows; the hardware layer renders it (the blink phase comes from its timer). */
struct dl_state {
    uint8_t mode[DL_SQUARES];      /* DL_OFF .. DL_FAST, observation order a1 c1 e1 g1 b2 ... h8 */
    uint8_t rgb[DL_SQUARES][3];    /* colour when lit */
    uint8_t brightness;            /* 0..255, scales every colour */
};

extern struct dl_state dl_state;

/* core (hardware independent) */
void dl_core_init(void);
void dl_core_byte(uint8_t c);      /* feed one received byte; runs a command at each newline */
uint8_t dl_core_receiving(void);   /* 1 while a line is half received (do not block interrupts then) */
void dl_send_line(const char *body); /* body + "*XX\n" */

/* hardware layer (dl_avr.c) */
void dl_hw_init(void);
void dl_hw_putc(char c);
int dl_hw_getc(void);              /* -1 when nothing was received */
void dl_hw_show(void);             /* render dl_state now */
void dl_hw_poll(void);             /* blink: re-render when a blink phase changes */
extern const char dl_hw_caps[];    /* "rgb=1 blink=1 bright=1 hw=ws2812" */

/* the sketch's two entry points (Arduino setup()/loop(), or main() with plain avr-gcc) */
void dl_setup(void);
void dl_loop(void);

#ifdef __cplusplus
}
#endif
#endif
