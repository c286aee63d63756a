/* libl4: sigma0 protocol client (contract §6.6). */
#include <libl4/sigma0.h>
#include <libl4/ipc.h>

/* Send a sigma0 RPC (label -6, u = 2: MR1 fpage, MR2 attributes) as a Call and return the
 * fpage of the map item in the reply (MR2), or nilpage. */
static l4_word_t sigma0_request(l4_word_t sigma0, l4_word_t fpage, l4_word_t attributes,
                                l4_word_t rcv_window)
{
    l4_word_t saved_br0 = l4_br(0);
    l4_set_br(0, rcv_window & ~0xFull);     /* no strings, mappings into the window */
    l4_set_mr(1, fpage);
    l4_set_mr(2, attributes);
    l4_set_mr(0, l4_tag_make(L4_SIGMA0_LABEL, 2, 0));
    l4_word_t tag = l4_call(sigma0);
    l4_set_br(0, saved_br0);
    if (l4_ipc_failed(tag) || l4_tag_t(tag) < 2)
        return L4_NILPAGE;
    l4_word_t item = l4_mr(l4_tag_u(tag) + 1);
    if (!l4_item_is_map(item) && !l4_item_is_grant(item))
        return L4_NILPAGE;
    return l4_mr(l4_tag_u(tag) + 2);
}

l4_word_t l4_sigma0_get_page(l4_word_t sigma0, l4_word_t fpage, l4_word_t rcv_window)
{
    return sigma0_request(sigma0, fpage, 0, rcv_window);
}

l4_word_t l4_sigma0_get_page_attr(l4_word_t sigma0, l4_word_t fpage, l4_word_t attributes,
                                  l4_word_t rcv_window)
{
    return sigma0_request(sigma0, fpage, attributes, rcv_window);
}

l4_word_t l4_sigma0_get_any(l4_word_t sigma0, unsigned log2size, l4_word_t rcv_window)
{
    return sigma0_request(sigma0, l4_sigma0_any_fpage(log2size), 0, rcv_window);
}

l4_word_t l4_sigma0_get_ports(l4_word_t sigma0, l4_word_t io_fpage)
{
    return sigma0_request(sigma0, io_fpage, 0, L4_COMPLETE_FPAGE);
}
