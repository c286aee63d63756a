/* Client side of the root task's service (libl4/task.h). */
#include <libl4.h>
#include <string.h>

l4_word_t l4_root_call_n(l4_word_t label, unsigned n, const l4_word_t *words, l4_word_t *error)
{
    const struct l4_task_start *ts = l4_task_start();
    if (!ts || n > 16) {
        if (error)
            *error = ts ? L4_ERR_INVALID_PARAM : L4_ERR_INVALID_THREAD;
        return 0;
    }
    l4_set_mr(0, l4_tag_make(label, n, 0));
    for (unsigned i = 0; i < n; i++)
        l4_set_mr(i + 1, words[i]);
    l4_word_t tag = l4_call(ts->root);
    if (l4_ipc_failed(tag)) {
        if (error)
            *error = L4_ERR_INVALID_THREAD;
        return 0;
    }
    if (error)
        *error = l4_mr(2);
    return l4_mr(1);
}

l4_word_t l4_root_call(l4_word_t label, l4_word_t a, l4_word_t b, l4_word_t c, l4_word_t d,
                       l4_word_t *error)
{
    const l4_word_t w[4] = { a, b, c, d };
    return l4_root_call_n(label, 4, w, error);
}

l4_word_t l4_task_create(const struct l4_task_params *p, l4_word_t *error)
{
    const l4_word_t w[9] = { p->pager, p->priority, p->flags, p->kip_area, p->utcb_area,
                             p->exception_handler, p->redirector, p->ip, p->sp };
    return l4_root_call_n(ROOT_TASK_CREATE, 9, w, error);
}

static void pack_name(const char *name, l4_word_t w[2])
{
    char buf[16] = { 0 };
    strncpy(buf, name, sizeof(buf));
    memcpy(w, buf, 16);
}

l4_word_t l4_name_lookup(const char *name)
{
    l4_word_t w[2];
    pack_name(name, w);
    return l4_root_call(ROOT_NAME_LOOKUP, w[0], w[1], 0, 0, NULL);
}

bool l4_name_register(const char *name, l4_word_t thread)
{
    l4_word_t w[2], err;
    pack_name(name, w);
    return l4_root_call(ROOT_NAME_REGISTER, w[0], w[1], thread, 0, &err) && !err;
}

l4_word_t l4_data_map(const char *name, l4_word_t addr, l4_word_t *error)
{
    l4_word_t w[3];
    pack_name(name, w);
    w[2] = addr;
    return l4_root_call_n(ROOT_DATA_MAP, 3, w, error);
}
