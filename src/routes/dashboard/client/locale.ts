// uPlot makes an Intl.NumberFormat of navigator.language as it loads. Chromium started under a
// POSIX locale (LANG=C.UTF-8) reports "en-US@posix", which Intl refuses, and the whole script
// would stop there: such a browser is given the page's own locale instead. Imported before uPlot.
try {
  new Intl.NumberFormat(navigator.language);
} catch {
  Object.defineProperty(navigator, "language", { value: "en-US", configurable: true });
}
