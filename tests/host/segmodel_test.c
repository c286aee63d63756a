/* Host unit test of the descriptor fuzzer's model (user/tests/fuzz_segmodel.c): its outcomes
 * for Pecan's GDT and a null LDT (what the fuzzer checks the CPU against), for descriptors
 * planted in an LDT at linear 0 (what a kernel without `lldt` lets the CPU read), and for
 * QEMU 7.2's supervisor-mode stack accesses, case by case from the SDM's instruction pages and
 * QEMU's seg_helper.c.  Run by test_segmodel.py. */
#include "unit_check.h"
#include "fuzz_segmodel.h"

/* Pecan's GDT (kernel/arch/x86_64/cpu.c) as the fuzzer models it (fd_gdt_model). */
static const uint64_t gdt[8] = {
    0, 0x00AF9A000000FFFFul, 0x00CF92000000FFFFul, 0x00CFF3000000FFFFul,
    0x00AFFB000000FFFFul, 0x00008B0000000000ul, 0,
};
static uint64_t ldt_mem[8192];          /* linear 0..0xFFFF for an LDT at base 0 */

static uint64_t ldt_read(const void *ctx, uint64_t addr)
{
    (void)ctx;
    return ldt_mem[(addr & 0xFFFF) / 8];
}

static const struct sm_tables pecan = { gdt, 0x37, 0, 0, NULL, false };
static const struct sm_tables reset_ldt = { gdt, 0x37, 0xFFFF, 0, NULL, false };
static const struct sm_tables qemu_smap = { gdt, 0x37, 0, 0, NULL, true };

#define RSP 0x7000ul
#define TARGET 0x401000ul

static struct sm_in input(unsigned op, unsigned sel)
{
    struct sm_in in = {
        .op = op, .sel = sel, .other = op == SM_IRET_CS ? 0x1B : 0x23, .target = TARGET,
        .rsp = RSP, .frame_rsp = 0x6000, .frame_flags = 0x202, .flags = 0x202,
    };
    return in;
}

static struct sm_out model_in(const struct sm_tables *t, const struct sm_in *in)
{
    struct sm_out o;
    sm_model(t, ldt_read, in, &o);
    return o;
}

static struct sm_out model(const struct sm_tables *t, unsigned op, unsigned sel)
{
    struct sm_in in = input(op, sel);
    return model_in(t, &in);
}

#define FAULTS(o, vec, err, what)                                                          \
    do {                                                                                   \
        CHECK_EQ((o).kind, SM_FAULT, "%s faults", what);                                   \
        CHECK_EQ((o).vector, vec, "%s: vector", what);                                     \
        CHECK_EQ((o).error, err, "%s: error code", what);                                  \
    } while (0)

/* #GP(error) with Pecan's GDT and a null LDT, one operation each (the loops below cover
 * every data-segment register and both far jumps). */
static const struct { unsigned op, sel, error; const char *what; } gdt_faults[] = {
    { SM_MOV_SS, 0x18, 0x18, "RPL 0 != CPL" },
    { SM_MOV_SS, 0x23, 0x20, "code is not writable" },
    { SM_MOV_SS, 0x13, 0x10, "DPL 0 != CPL" },
    { SM_MOV_SS, 0x1C, 0x1C, "TI=1" },
    { SM_LRET, 0, 0, "null CS" },
    { SM_LRET, 0x20, 0x20, "RPL 0 < CPL" },
    { SM_LRET, 0x0B, 0x08, "kernel code: DPL != RPL" },
    { SM_LRET, 0x1B, 0x18, "data" },
    { SM_LRET, 0x2F, 0x2C, "TI=1" },
    { SM_IRET_CS, 0x08, 0x08, "CS 0x08: RPL 0 < CPL" },
    { SM_IRET_CS, 0x0B, 0x08, "CS 0x0b: DPL 0 != RPL" },
    { SM_IRET_SS, 0, 0, "null SS for CPL 3" },
    { SM_IRET_SS, 0x18, 0x18, "SS RPL != CS RPL" },
    { SM_IRET_SS, 0x23, 0x20, "SS not writable data" },
    { SM_IRET_SS, 0x13, 0x10, "SS DPL != RPL" },
    { SM_LLDT, 0, 0, "lldt at CPL 3" },
    { SM_LTR, 0x28, 0, "ltr at CPL 3" },
    { SM_MOV_DS, 0x87, 0x84, "TI=1 with a null LDT (loads through a reset LDTR, below)" },
};

static void test_single_faults(void)
{
    for (size_t i = 0; i < sizeof(gdt_faults) / sizeof(gdt_faults[0]); i++)
        FAULTS(model(&pecan, gdt_faults[i].op, gdt_faults[i].sel), SM_GP, gdt_faults[i].error,
               gdt_faults[i].what);
}

static void test_data_segment_loads(void)
{
    for (unsigned op = SM_MOV_DS; op <= SM_MOV_GS; op++) {
        for (unsigned sel = 0; sel < 4; sel++) {             /* null: allowed, base 0 */
            struct sm_out o = model(&pecan, op, sel);
            CHECK(o.kind == SM_DONE && o.seg == sel && o.base == 0, "op %u null %u", op, sel);
        }
        for (unsigned sel = 0x18; sel < 0x24; sel++) {       /* user data, readable user code */
            if (sel & 4)
                continue;
            struct sm_out o = model(&pecan, op, sel);
            CHECK(o.kind == SM_DONE && o.seg == sel, "op %u loads %#x", op, sel);
        }
        FAULTS(model(&pecan, op, 0x08), SM_GP, 0x08, "kernel code (DPL 0)");
        FAULTS(model(&pecan, op, 0x13), SM_GP, 0x10, "kernel data (DPL 0)");
        FAULTS(model(&pecan, op, 0x2B), SM_GP, 0x28, "the TSS (a system descriptor)");
        FAULTS(model(&pecan, op, 0x33), SM_GP, 0x30, "the TSS's upper half");
        FAULTS(model(&pecan, op, 0x3B), SM_GP, 0x38, "beyond the GDT's limit");
        FAULTS(model(&pecan, op, 0xFFFF), SM_GP, 0xFFFC, "selector 0xffff");
        FAULTS(model(&pecan, op, 0x07), SM_GP, 0x04, "TI=1 index 0 (not null)");
        FAULTS(model(&pecan, op, 0x1F), SM_GP, 0x1C, "TI=1, null LDT");
    }
}

static void test_ss_loads(void)
{
    for (unsigned sel = 0; sel < 4; sel++)
        FAULTS(model(&pecan, SM_MOV_SS, sel), SM_GP, 0, "null SS at CPL 3");
    struct sm_out o = model(&pecan, SM_MOV_SS, 0x1B);
    CHECK(o.kind == SM_DONE && o.seg == 0x1B, "SS 0x1b");
}

static void test_far_jump_and_call(void)
{
    for (unsigned sel = 0x20; sel < 0x24; sel++) {
        struct sm_out c = model(&pecan, SM_LCALL, sel), j = model(&pecan, SM_LJMP, sel);
        CHECK(c.kind == SM_DONE && c.cs == 0x23 && c.rip == TARGET && c.rsp == RSP - 16,
              "lcall %#x: CS 0x23, two words pushed", sel);
        CHECK(j.kind == SM_DONE && j.cs == 0x23 && j.rsp == RSP, "ljmp %#x", sel);
    }
    for (unsigned op = SM_LCALL; op <= SM_LJMP; op++) {
        FAULTS(model(&pecan, op, 0), SM_GP, 0, "null");
        FAULTS(model(&pecan, op, 0x0B), SM_GP, 0x08, "kernel code: DPL != CPL");
        FAULTS(model(&pecan, op, 0x1B), SM_GP, 0x18, "data");
        FAULTS(model(&pecan, op, 0x28), SM_GP, 0x28, "a TSS: no task switch in IA-32e mode");
        FAULTS(model(&pecan, op, 0x30), SM_GP, 0x30, "type 0");
        FAULTS(model(&pecan, op, 0x8227), SM_GP, 0x8224, "issue 12's gate selector, null LDT");
    }
    /* A non-canonical target: the transfer completes, the fetch faults (QEMU). */
    struct sm_in in = input(SM_LCALL, 0x23);
    in.target = 0x8000000000001000ul;
    struct sm_out o = model_in(&pecan, &in);
    FAULTS(o, SM_GP, 0, "non-canonical target");
    CHECK(o.at_target && o.rip == in.target && o.rsp == RSP - 16, "... at the target");
}

static void test_far_return(void)
{
    struct sm_out o = model(&pecan, SM_LRET, 0x23);
    CHECK(o.kind == SM_DONE && o.cs == 0x23 && o.rsp == RSP + 16 && o.rip == TARGET, "lretq");
    struct sm_in in = input(SM_LRET, 0x23);
    in.addend = 16;
    o = model_in(&pecan, &in);
    CHECK(o.kind == SM_DONE && o.rsp == RSP + 32, "lretq $16");
}

static void test_iret(void)
{
    struct sm_out o = model(&pecan, SM_IRET_CS, 0x23);
    CHECK(o.kind == SM_DONE && o.cs == 0x23 && o.ss == 0x1B && o.rsp == 0x6000, "iretq");
    /* RFLAGS: at CPL 3 neither IOPL nor IF nor VM/VIF/VIP load; TF, NT, AC, ID, RF do. */
    struct sm_in in = input(SM_IRET_CS, 0x23);
    in.frame_flags = ~0ul & ~SM_IF;
    o = model_in(&pecan, &in);
    CHECK_EQ(o.flags, SM_ARITH | SM_TF | SM_DF | SM_NT | SM_AC | SM_ID | SM_RF | SM_IF | 2,
             "RFLAGS after iretq");
    in.flags |= SM_NT;
    FAULTS(model_in(&pecan, &in), SM_GP, 0, "iretq with NT set: a task return");
    /* DS/ES with a null selector of RPL 1-3 become 0, FS/GS stay (QEMU's validate_seg). */
    in = input(SM_IRET_CS, 0x23);
    in.seg[0] = 3;
    in.seg[1] = 0x1B;
    in.seg[2] = 3;
    in.seg[3] = 0x21;
    o = model_in(&pecan, &in);
    CHECK(o.seg_after[0] == 0 && o.seg_after[1] == 0x1B && o.seg_after[2] == 3 &&
          o.seg_after[3] == 0x21, "segments after iretq");
}

static void test_probes(void)
{
    struct sm_out o = model(&pecan, SM_LAR, 0x1B);
    CHECK(o.zf && o.value == 0x00C0F300, "lar 0x1b");
    o = model(&pecan, SM_LAR, 0x23);
    CHECK(o.zf && o.value == 0x00A0FB00, "lar 0x23");
    o = model(&pecan, SM_LSL, 0x1B);
    CHECK(o.zf && o.value == 0xFFFFFFFF, "lsl 0x1b");
    CHECK(!model(&pecan, SM_LAR, 0x2B).zf, "lar of the TSS: DPL 0");
    CHECK(!model(&pecan, SM_LAR, 0x08).zf, "lar of kernel code");
    CHECK(!model(&pecan, SM_LAR, 0x03).zf && !model(&pecan, SM_LAR, 0x07).zf, "null, TI=1");
    CHECK(model(&pecan, SM_VERR, 0x23).zf && !model(&pecan, SM_VERW, 0x23).zf, "code");
    CHECK(model(&pecan, SM_VERR, 0x1B).zf && model(&pecan, SM_VERW, 0x1B).zf, "data");
    CHECK(!model(&pecan, SM_VERR, 0x10).zf && !model(&pecan, SM_VERW, 0x18 | 4).zf, "denied");
}

/* A 16-byte gate at ldt_mem[i], i+1. */
static void gate(unsigned i, unsigned type, unsigned dpl, unsigned cs, uint64_t off, unsigned up)
{
    ldt_mem[i] = (off & 0xFFFF) | ((uint64_t)cs << 16) | ((uint64_t)type << 40) |
                 ((uint64_t)dpl << 45) | (1ul << 47) | (((off >> 16) & 0xFFFF) << 48);
    ldt_mem[i + 1] = (off >> 32) | ((uint64_t)up << 40);
}

static void test_planted_in_an_ldt_at_zero(void)
{
    ldt_mem[0x10] = 0x00CFF2000000FFFFul;               /* data, DPL 3 */
    ldt_mem[0x11] = 0x00CF72000000FFFFul;               /* data, DPL 3, not present */
    ldt_mem[0x12] = 0x00AFDE000000FFFFul;               /* conforming code, DPL 2, 64-bit */
    ldt_mem[0x13] = 0x0000E90000000067ul;               /* 64-bit TSS, DPL 3 */
    ldt_mem[0x14] = 0x0000E10000000067ul;               /* 16-bit TSS, DPL 3 */
    gate(0x20, 12, 3, 0x08, 0xFFFFFFFF80001234ul, 0);   /* issue 12's call gate */
    gate(0x22, 12, 3, 0x08, 0xFFFFFFFF80001234ul, 3);   /* upper half not type 0 */
    gate(0x24, 4, 3, 0x08, 0x1234, 0);                  /* a 16-bit call gate */
    gate(0x26, 12, 0, 0x08, 0x1234, 0);                 /* gate DPL 0 */
    gate(0x28, 12, 3, 0x23, TARGET, 0);                 /* to user code */
    struct sm_out o = model(&reset_ldt, SM_MOV_DS, 0x87);
    CHECK(o.kind == SM_DONE && o.seg == 0x87, "a planted data descriptor loads");
    FAULTS(model(&reset_ldt, SM_MOV_DS, 0x8F), SM_NP, 0x8C, "not present");
    FAULTS(model(&reset_ldt, SM_MOV_SS, 0x8F), SM_SS, 0x8C, "not present, as SS");
    o = model(&reset_ldt, SM_LCALL, 0x97);
    CHECK(o.kind == SM_DONE && o.cs == 0x97, "lcall to conforming code keeps CPL 3");
    o = model(&reset_ldt, SM_LCALL, 0x107);
    CHECK(o.kind == SM_DONE && o.privileged && o.cs == 0x08 && o.rip == 0xFFFFFFFF80001234ul,
          "lcall through the planted gate: CPL 0 at the gate's RIP");
    FAULTS(model(&reset_ldt, SM_LJMP, 0x107), SM_GP, 0x08, "ljmp cannot change privilege");
    FAULTS(model(&reset_ldt, SM_LCALL, 0x117), SM_GP, 0x114, "gate's upper half type");
    FAULTS(model(&reset_ldt, SM_LCALL, 0x127), SM_GP, 0x124, "16-bit gate in IA-32e mode");
    FAULTS(model(&reset_ldt, SM_LCALL, 0x137), SM_GP, 0x134, "gate DPL < CPL");
    o = model(&reset_ldt, SM_LCALL, 0x147);
    CHECK(o.kind == SM_DONE && !o.privileged && o.cs == 0x23 && o.rsp == RSP - 16,
          "a gate to user code");
    o = model(&reset_ldt, SM_LAR, 0x9F);
    CHECK(o.zf && o.value == 0x0000E900, "lar of a planted 64-bit TSS");
    CHECK(model(&reset_ldt, SM_LAR, 0xA7).zf, "lar of a 16-bit TSS (QEMU; the SDM: no)");
    CHECK(!model(&reset_ldt, SM_LSL, 0x107).zf && model(&reset_ldt, SM_LAR, 0x107).zf,
          "a call gate: lar yes, lsl no");
    o = model(&reset_ldt, SM_IRET_SS, 0x8F);
    FAULTS(o, SM_NP, 0x8C, "iretq to a not-present SS (QEMU; the SDM: #SS)");
}

static void test_qemu_stack_accesses_under_smap(void)
{
    struct sm_out o = model(&qemu_smap, SM_LRET, 0x08);
    FAULTS(o, SM_PF, 1, "lretq pops before any check");
    CHECK_EQ(o.address, RSP, "... at RSP");
    o = model(&qemu_smap, SM_IRET_CS, 0x23);
    FAULTS(o, SM_PF, 1, "iretq");
    o = model(&qemu_smap, SM_LCALL, 0x23);
    FAULTS(o, SM_PF, 3, "lcall pushes CS first");
    CHECK_EQ(o.address, RSP - 8, "... at RSP - 8");
    FAULTS(model(&qemu_smap, SM_LCALL, 0x08), SM_GP, 0x08, "lcall checks before pushing");
    CHECK(model(&qemu_smap, SM_LJMP, 0x23).kind == SM_DONE, "ljmp has no stack access");
    struct sm_in in = input(SM_IRET_CS, 0x23);
    in.flags |= SM_NT;
    FAULTS(model_in(&qemu_smap, &in), SM_GP, 0, "iretq checks NT before popping");
}

static const struct uc_case cases[] = {
    { "single_faults", test_single_faults },
    { "data_segment_loads", test_data_segment_loads },
    { "ss_loads", test_ss_loads },
    { "far_jump_and_call", test_far_jump_and_call },
    { "far_return", test_far_return },
    { "iret", test_iret },
    { "probes", test_probes },
    { "planted_in_an_ldt_at_zero", test_planted_in_an_ldt_at_zero },
    { "qemu_stack_accesses_under_smap", test_qemu_stack_accesses_under_smap },
};

int main(int argc, char **argv)
{
    return uc_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
