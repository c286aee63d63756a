/* 8259 programmable interrupt controllers. */
#ifndef PIC_H
#define PIC_H

void pic_init(unsigned vector_base);
void pic_disable(void);
void pic_mask_line(unsigned n);
void pic_unmask_line(unsigned n);
void pic_eoi(unsigned n);

#endif
