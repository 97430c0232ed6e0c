// The package ships no types; the test gives the constructor the shape it uses.
declare module "@mempool/electrum-client" {
  const ElectrumClient: unknown;
  export default ElectrumClient;
}
