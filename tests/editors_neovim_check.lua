-- Run by tests/test_editors.py: open a Kite file in headless Neovim with editors/neovim/kite.lua, wait for
-- `kite lsp` to publish, and write what vim.diagnostic.get sees as JSON to $KITE_NVIM_OUT.
dofile(vim.env.KITE_NVIM_CONFIG)
vim.cmd("edit " .. vim.fn.fnameescape(vim.env.KITE_NVIM_FILE))
local found = vim.wait(60000, function() return #vim.diagnostic.get(0) > 0 end, 50)
local out = {}
for _, d in ipairs(vim.diagnostic.get(0)) do
  table.insert(out, { lnum = d.lnum, col = d.col, end_col = d.end_col, code = d.code, source = d.source, message = d.message })
end
vim.fn.writefile({ vim.fn.json_encode({ waited = found, diagnostics = out }) }, vim.env.KITE_NVIM_OUT)
vim.cmd("qa!")
