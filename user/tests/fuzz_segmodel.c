/* The model of segment operations at CPL 3 in 64-bit mode (fuzz_segmodel.h).  Each function
 * makes the checks of its instruction in the order QEMU's TCG makes them; a comment marks each
 * place where the SDM says otherwise. */
#include "fuzz_segmodel.h"

/* Called by the fuzz threads, whose pages hold only the fuzztext section: no jump tables, no
 * calls of memset/memcpy. */
#pragma GCC push_options
#pragma GCC optimize("no-jump-tables", "no-tree-switch-conversion", \
                     "no-tree-loop-distribute-patterns")

#define CPL 3u
enum { DS, ES, FS, GS, SS };

struct desc {
    uint32_t e1, e2;
};

SM_TEXT bool sm_canonical(uint64_t a)
{
    return (uint64_t)((int64_t)(a << 16) >> 16) == a;
}

SM_TEXT uint64_t sm_ldt_address(const struct sm_tables *t, unsigned sel)
{
    unsigned off = sel & ~7u;
    if (!(sel & 4) || t->ldt_limit == 0 || off + 7 > t->ldt_limit)
        return ~0ul;
    return t->ldt_base + off;
}

/* The descriptor a selector names; false if it lies outside its table.  The selector may be
 * wider than 16 bits (the upper half of a 64-bit gate is read at selector + 8). */
static SM_TEXT bool fetch(const struct sm_tables *t, sm_read_fn *ldt_read,
                          unsigned sel, struct desc *d)
{
    unsigned off = sel & ~7u;
    uint64_t v;
    if (sel & 4) {
        if (t->ldt_limit == 0 || off + 7 > t->ldt_limit)
            return false;
        v = ldt_read(t->ctx, t->ldt_base + off);
    } else {
        if (off + 7 > t->gdt_limit)
            return false;
        v = t->gdt[off / 8];
    }
    d->e1 = (uint32_t)v;
    d->e2 = (uint32_t)(v >> 32);
    return true;
}

static SM_TEXT unsigned dpl(uint32_t e2)
{
    return (e2 >> 13) & 3;
}

static SM_TEXT uint64_t seg_base(struct desc d)
{
    return (d.e1 >> 16) | ((d.e2 & 0xFFu) << 16) | (d.e2 & 0xFF000000u);
}

static SM_TEXT uint32_t seg_limit(struct desc d)
{
    uint32_t l = (d.e1 & 0xFFFF) | (d.e2 & 0xF0000);
    return d.e2 & SM_G ? (l << 12) | 0xFFF : l;
}

static SM_TEXT void fault(struct sm_out *o, unsigned vector, unsigned error)
{
    o->kind = SM_FAULT;
    o->vector = vector;
    o->error = error & 0xFFFC;
}

/* After a far transfer: a non-canonical RIP in a 64-bit code segment faults when the CPU
 * fetches there.  (The SDM: #GP(0) at the transferring instruction itself, nothing changed.) */
static SM_TEXT void transferred(struct sm_out *o)
{
    o->kind = SM_DONE;
    if (!o->compat && !sm_canonical(o->rip)) {
        o->kind = SM_FAULT;
        o->vector = SM_GP;
        o->error = 0;
        o->at_target = true;
    }
}

/* A stack access with supervisor rights to a user page under SMAP (stack_supervisor). */
static SM_TEXT bool stack_fault(const struct sm_tables *t, struct sm_out *o, uint64_t addr,
                                bool write)
{
    if (!t->stack_supervisor)
        return false;
    o->kind = SM_FAULT;
    o->vector = SM_PF;
    o->error = write ? 3 : 1;               /* present, (write,) supervisor */
    o->address = addr;
    return true;
}

/* mov/pop/lds-family into DS, ES, FS, GS or SS. */
static SM_TEXT void seg_load(const struct sm_tables *t, sm_read_fn *rd, unsigned seg,
                             unsigned sel, struct sm_out *o)
{
    struct desc d;
    sel &= 0xFFFF;
    if ((sel & 0xFFFC) == 0) {
        if (seg == SS) {                       /* 64-bit mode, CPL 3: a null SS is #GP(0) */
            fault(o, SM_GP, 0);
            return;
        }
        o->kind = SM_DONE;                      /* base 0: Intel's (and QEMU's) null FS/GS */
        o->seg = sel;
        o->base = 0;
        return;
    }
    if (!fetch(t, rd, sel, &d) || !(d.e2 & SM_S)) {
        fault(o, SM_GP, sel);
        return;
    }
    unsigned rpl = sel & 3, dp = dpl(d.e2);
    if (seg == SS) {
        if ((d.e2 & SM_CODE) || !(d.e2 & SM_RW) || rpl != CPL || dp != CPL) {
            fault(o, SM_GP, sel);
            return;
        }
    } else {
        if ((d.e2 & (SM_CODE | SM_RW)) == SM_CODE) {    /* execute-only code */
            fault(o, SM_GP, sel);
            return;
        }
        if ((!(d.e2 & SM_CODE) || !(d.e2 & SM_C)) && (dp < CPL || dp < rpl)) {
            fault(o, SM_GP, sel);
            return;
        }
    }
    if (!(d.e2 & SM_P)) {
        fault(o, seg == SS ? SM_SS : SM_NP, sel);
        return;
    }
    o->kind = SM_DONE;
    o->seg = sel;
    o->base = seg_base(d);
}

/* Far jmp or call through m16:64: to a code segment, or through a 64-bit call gate. */
static SM_TEXT void far_jump(const struct sm_tables *t, sm_read_fn *rd,
                             const struct sm_in *in, bool call, struct sm_out *o)
{
    struct desc d, hi, c;
    unsigned sel = in->sel & 0xFFFF, rpl = sel & 3;
    if ((sel & 0xFFFC) == 0) {
        fault(o, SM_GP, 0);
        return;
    }
    if (!fetch(t, rd, sel, &d)) {
        fault(o, SM_GP, sel);
        return;
    }
    o->ss = 0x1B;
    o->flags = in->flags;
    if (d.e2 & SM_S) {
        unsigned dp = dpl(d.e2);
        if (!(d.e2 & SM_CODE) || ((d.e2 & SM_C) ? dp > CPL : (rpl > CPL || dp != CPL))) {
            fault(o, SM_GP, sel);
            return;
        }
        if (!(d.e2 & SM_P)) {
            fault(o, SM_NP, sel);
            return;
        }
        /* jmp checks the limit unless the target is 64-bit code; call (64-bit operand) not */
        if (!call && in->target > seg_limit(d) && !(d.e2 & SM_L)) {
            fault(o, SM_GP, 0);
            return;
        }
        if (call && stack_fault(t, o, in->rsp - 8, true))     /* pushes CS first */
            return;
        o->cs = (sel & 0xFFFC) | CPL;
        o->rip = in->target;
        o->rsp = call ? in->rsp - 16 : in->rsp;
        o->compat = !(d.e2 & SM_L);
        transferred(o);
        return;
    }
    /* A system descriptor: in IA-32e mode only a 64-bit call gate (type 12) goes on. */
    if (((d.e2 >> 8) & 0xF) != 12 || dpl(d.e2) < CPL || dpl(d.e2) < rpl) {
        fault(o, SM_GP, sel);
        return;
    }
    if (!(d.e2 & SM_P)) {
        fault(o, SM_NP, sel);
        return;
    }
    unsigned gate_cs = d.e1 >> 16;
    uint64_t offset = (d.e1 & 0xFFFF) | (d.e2 & 0xFFFF0000u);
    if (!fetch(t, rd, sel + 8, &hi) || ((hi.e2 >> 8) & 0x1F) != 0) {
        fault(o, SM_GP, sel);
        return;
    }
    offset |= (uint64_t)hi.e1 << 32;
    if (call && (gate_cs & 0xFFFC) == 0) {
        fault(o, SM_GP, 0);
        return;
    }
    if (!fetch(t, rd, gate_cs, &c) || (c.e2 & (SM_S | SM_CODE)) != (SM_S | SM_CODE)) {
        fault(o, SM_GP, gate_cs);
        return;
    }
    unsigned cd = dpl(c.e2);
    /* call: to any code of DPL <= CPL; jmp: no change of privilege */
    if (call ? cd > CPL : ((c.e2 & SM_C) ? cd > CPL : cd != CPL)) {
        fault(o, SM_GP, gate_cs);
        return;
    }
    if (!(c.e2 & SM_L) || (c.e2 & SM_DB)) {
        fault(o, SM_GP, gate_cs);
        return;
    }
    if (!(c.e2 & SM_P)) {
        /* The SDM: #NP(selector) for both; QEMU's jmp through a gate raises #GP. */
        fault(o, call ? SM_NP : SM_GP, gate_cs);
        return;
    }
    o->rip = offset;
    if (call && !(c.e2 & SM_C) && cd < CPL) {
        /* More privileged: the stack from the TSS, CPL = cd.  This is the ring-0 escape. */
        o->privileged = true;
        o->cs = (gate_cs & 0xFFFC) | cd;
        o->ss = cd;
        o->kind = SM_DONE;
        return;
    }
    if (call && stack_fault(t, o, in->rsp - 8, true))
        return;
    o->cs = (gate_cs & 0xFFFC) | (call ? cd : CPL);
    o->rsp = call ? in->rsp - 16 : in->rsp;
    transferred(o);
}

/* The CS checks of lretq and iretq (return to CPL = RPL of the new CS). */
static SM_TEXT bool return_cs(const struct sm_tables *t, sm_read_fn *rd, unsigned cs,
                              struct desc *d, struct sm_out *o)
{
    if ((cs & 0xFFFC) == 0) {
        fault(o, SM_GP, 0);
        return false;
    }
    if (!fetch(t, rd, cs, d) || !(d->e2 & SM_S) || !(d->e2 & SM_CODE) || (cs & 3) < CPL) {
        fault(o, SM_GP, cs);
        return false;
    }
    unsigned dp = dpl(d->e2), rpl = cs & 3;
    if ((d->e2 & SM_C) ? dp > rpl : dp != rpl) {
        fault(o, SM_GP, cs);
        return false;
    }
    if (!(d->e2 & SM_P)) {
        fault(o, SM_NP, cs);
        return false;
    }
    return true;
}

static SM_TEXT void far_return(const struct sm_tables *t, sm_read_fn *rd,
                               const struct sm_in *in, struct sm_out *o)
{
    struct desc d;
    unsigned cs = in->sel & 0xFFFF;
    if (stack_fault(t, o, in->rsp, false))     /* it pops RIP and CS before any check */
        return;
    if (!return_cs(t, rd, cs, &d, o))
        return;
    /* RPL == CPL: the same privilege, SS:RSP are not popped. */
    o->cs = cs;
    o->ss = 0x1B;
    o->rip = in->target;
    o->rsp = in->rsp + 16 + in->addend;
    o->flags = in->flags;
    o->compat = !(d.e2 & SM_L);
    transferred(o);
}

/* The attributes a segment register caches: 0 for a null selector. */
static SM_TEXT uint32_t cached(const struct sm_tables *t, sm_read_fn *rd, unsigned sel)
{
    struct desc d;
    if ((sel & 0xFFFC) == 0 || !fetch(t, rd, sel, &d))
        return 0;
    return d.e2;
}

static SM_TEXT void iret(const struct sm_tables *t, sm_read_fn *rd,
                         const struct sm_in *in, struct sm_out *o)
{
    struct desc d, s;
    unsigned cs = (in->op == SM_IRET_CS ? in->sel : in->other) & 0xFFFF;
    unsigned ss = (in->op == SM_IRET_SS ? in->sel : in->other) & 0xFFFF;
    if (in->flags & SM_NT) {                    /* a task return: none in IA-32e mode */
        fault(o, SM_GP, 0);
        return;
    }
    if (stack_fault(t, o, in->rsp, false))
        return;
    if (!return_cs(t, rd, cs, &d, o))
        return;
    unsigned rpl = cs & 3;
    /* iretq in 64-bit mode always pops SS:RSP; a null SS only for a return to CPL < 3 */
    if ((ss & 0xFFFC) == 0) {
        if (rpl == 3) {
            fault(o, SM_GP, 0);
            return;
        }
    } else {
        if ((ss & 3) != rpl || !fetch(t, rd, ss, &s) || !(s.e2 & SM_S) || (s.e2 & SM_CODE) ||
            !(s.e2 & SM_RW) || dpl(s.e2) != rpl) {
            fault(o, SM_GP, ss);
            return;
        }
        if (!(s.e2 & SM_P)) {
            fault(o, SM_NP, ss);                /* the SDM: #SS(selector) */
            return;
        }
    }
    o->cs = cs;
    o->ss = ss;
    o->rip = in->target;
    o->rsp = in->frame_rsp;
    /* Data segments the new CPL may not use become null.  QEMU leaves a null FS or GS alone
     * but nulls DS or ES holding 1-3 (a null selector caches DPL 0). */
    for (unsigned i = 0; i < 4; i++) {
        unsigned sel = in->seg[i];
        uint32_t e2 = cached(t, rd, sel);
        o->seg_after[i] = sel;
        if ((i == FS || i == GS) && (sel & 0xFFFC) == 0)
            continue;
        if ((!(e2 & SM_CODE) || !(e2 & SM_C)) && dpl(e2) < rpl)
            o->seg_after[i] = 0;
    }
    /* RFLAGS: IOPL only at CPL 0, IF only at CPL <= IOPL; VM, VIF, VIP never in 64-bit mode. */
    uint64_t mask = SM_TF | SM_AC | SM_ID | SM_RF | SM_NT | SM_ARITH | SM_DF;
    if (CPL <= ((in->flags >> 12) & 3))
        mask |= SM_IF;
    o->flags = (in->flags & ~mask) | (in->frame_flags & mask & 0xFFFFFFFFul) | 2;
    o->compat = !(d.e2 & SM_L);
    transferred(o);
}

/* lar, lsl, verr, verw: ZF says whether the descriptor passes; nothing faults. */
static SM_TEXT void probe(const struct sm_tables *t, sm_read_fn *rd, unsigned op,
                          unsigned sel, struct sm_out *o)
{
    struct desc d;
    o->kind = SM_DONE;
    o->zf = false;
    sel &= 0xFFFF;
    if ((sel & 0xFFFC) == 0 || !fetch(t, rd, sel, &d))
        return;
    unsigned rpl = sel & 3, dp = dpl(d.e2);
    bool rights = dp >= CPL && dp >= rpl;
    bool conforming = (d.e2 & SM_CODE) && (d.e2 & SM_C);
    if (op == SM_LAR || op == SM_LSL) {
        if (d.e2 & SM_S) {
            if (!conforming && !rights)
                return;
        } else {
            /* The SDM allows only the IA-32e types (LDT, TSS, call gate for lar); QEMU also
             * takes the 16-bit TSS, task gates and 16-bit call gates. */
            unsigned type = (d.e2 >> 8) & 0xF;
            bool ok = type == 1 || type == 2 || type == 3 || type == 9 || type == 11 ||
                      (op == SM_LAR && (type == 4 || type == 5 || type == 12));
            if (!ok || !rights)
                return;
        }
        o->zf = true;
        o->value = op == SM_LAR ? (d.e2 & 0x00F0FF00u) : seg_limit(d);
        return;
    }
    if (!(d.e2 & SM_S))
        return;
    if (d.e2 & SM_CODE) {
        if (op == SM_VERW || !(d.e2 & SM_RW) || (!(d.e2 & SM_C) && !rights))
            return;
    } else if (!rights || (op == SM_VERW && !(d.e2 & SM_RW))) {
        return;
    }
    o->zf = true;
}

SM_TEXT void sm_model(const struct sm_tables *t, sm_read_fn *ldt_read,
                      const struct sm_in *in, struct sm_out *out)
{
    out->kind = SM_DONE;
    out->vector = out->error = 0;
    out->at_target = out->privileged = out->compat = out->zf = false;
    out->seg = out->cs = out->ss = 0;
    out->base = out->rip = out->rsp = out->flags = out->value = out->address = 0;
    for (unsigned i = 0; i < 4; i++)
        out->seg_after[i] = in->seg[i];
    switch (in->op) {
    case SM_MOV_DS: case SM_MOV_ES: case SM_MOV_FS: case SM_MOV_GS: case SM_MOV_SS:
        seg_load(t, ldt_read, in->op - SM_MOV_DS, in->sel, out);
        break;
    case SM_LCALL: case SM_LJMP:
        far_jump(t, ldt_read, in, in->op == SM_LCALL, out);
        break;
    case SM_LRET:
        far_return(t, ldt_read, in, out);
        break;
    case SM_IRET_CS: case SM_IRET_SS:
        iret(t, ldt_read, in, out);
        break;
    case SM_LAR: case SM_LSL: case SM_VERR: case SM_VERW:
        probe(t, ldt_read, in->op, in->sel, out);
        break;
    default:                                    /* lldt, ltr: privileged */
        fault(out, SM_GP, 0);
        break;
    }
}

#pragma GCC pop_options
