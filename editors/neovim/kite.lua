-- Kite in Neovim 0.7 or later: `kite lsp` for every *.kite buffer.
-- Put this file on your runtimepath (or `dofile` it from init.lua); set `vim.g.kite_command` to the kite
-- executable if it is not on PATH (for example the project's .venv/bin/kite).
-- Neovim 0.7 has no vim.lsp.start, so the client is started once and attached to each Kite buffer.

vim.cmd([[autocmd BufRead,BufNewFile *.kite setfiletype kite]])

local kite_client_id = nil

local function kite_client()
  if kite_client_id == nil or vim.lsp.get_client_by_id(kite_client_id) == nil then
    kite_client_id = vim.lsp.start_client({
      name = "kite",
      cmd = { vim.g.kite_command or "kite", "lsp" },
      root_dir = vim.fn.getcwd(),
      -- Seconds of quiet before Kite's own layer and the C# layers run; the .NET side is let go after idleRelease.
      init_options = vim.g.kite_lsp_options or { kiteDelay = 0.05, csharpDelay = 0.25, idleRelease = 300 },
    })
  end
  return kite_client_id
end

-- The workspace features (`kite lsp` indexes every .kite file under root_dir), on the keys Neovim 0.10 gives them
-- by default, for 0.7 to 0.9 too. Semantic tokens are used by 0.9 and later on their own.
local function workspace_keys(buffer)
  local map = function(keys, action) vim.keymap.set("n", keys, action, { buffer = buffer }) end
  map("gd", vim.lsp.buf.definition)
  map("grr", vim.lsp.buf.references)
  map("grn", vim.lsp.buf.rename)
  map("gO", vim.lsp.buf.document_symbol)
  map("<leader>ws", function() vim.lsp.buf.workspace_symbol("") end)
  map("<leader>ci", vim.lsp.buf.incoming_calls)
  map("<leader>co", vim.lsp.buf.outgoing_calls)
  vim.keymap.set("i", "<C-s>", vim.lsp.buf.signature_help, { buffer = buffer })
  if vim.lsp.inlay_hint ~= nil and vim.lsp.inlay_hint.enable ~= nil then  -- 0.10 and later: each let's type
    pcall(vim.lsp.inlay_hint.enable, true, { bufnr = buffer })
  end
end

vim.api.nvim_create_autocmd("FileType", {
  pattern = "kite",
  callback = function(args)
    vim.lsp.buf_attach_client(args.buf, kite_client())
    vim.bo[args.buf].commentstring = "# %s"
    workspace_keys(args.buf)
  end,
})

-- Debugging with nvim-dap (if it is installed): `kite dap` is the adapter, on stdio (docs/debugger.md).
local has_dap, dap = pcall(require, "dap")
if has_dap then
  dap.adapters.kite = { type = "executable", command = vim.g.kite_command or "kite", args = { "dap" } }
  dap.configurations.kite = {
    { type = "kite", request = "launch", name = "Debug this Kite file", program = "${file}" },
    {
      type = "kite", request = "launch", name = "Debug one test of this file", program = "${file}",
      test = function() return vim.fn.input("Test title: ") end,
    },
  }
end
