/**
 * Carriers merchants ship with, by the code a merchant sends: the name a
 * tracker shows and the public tracking page, `{n}` standing for the tracking
 * number. Codes the pattern library also knows take their entry from here.
 */
export const carrierRegistry: Readonly<Record<string, { name: string; trackingPage: string }>> = {
  colissimo: { name: 'Colissimo', trackingPage: 'https://www.laposte.fr/outils/suivre-vos-envois?code={n}' },
  chronopost: {
    name: 'Chronopost',
    trackingPage: 'https://www.chronopost.fr/tracking-no-cms/suivi-page?listeNumerosLT={n}',
  },
  laposte: { name: 'La Poste', trackingPage: 'https://www.laposte.fr/outils/suivre-vos-envois?code={n}' },
  dpd: { name: 'DPD', trackingPage: 'https://tracking.dpd.de/status/en_US/parcel/{n}' },
  gls: { name: 'GLS', trackingPage: 'https://gls-group.com/track/{n}' },
  dhl: {
    name: 'DHL',
    trackingPage: 'https://www.dhl.com/global-en/home/tracking/tracking-parcel.html?submit=1&tracking-id={n}',
  },
  dhl_express: {
    name: 'DHL Express',
    trackingPage: 'https://www.dhl.com/global-en/home/tracking/tracking-express.html?submit=1&tracking-id={n}',
  },
  dhl_parcel: {
    name: 'DHL Parcel',
    trackingPage: 'https://www.dhl.com/global-en/home/tracking/tracking-parcel.html?submit=1&tracking-id={n}',
  },
  ups: { name: 'UPS', trackingPage: 'https://www.ups.com/track?tracknum={n}' },
  fedex: { name: 'FedEx', trackingPage: 'https://www.fedex.com/fedextrack/?trknbr={n}' },
  usps: { name: 'USPS', trackingPage: 'https://tools.usps.com/go/TrackConfirmAction?tLabels={n}' },
  royal_mail: { name: 'Royal Mail', trackingPage: 'https://www.royalmail.com/track-your-item#/tracking-results/{n}' },
  evri: { name: 'Evri', trackingPage: 'https://www.evri.com/track/parcel/{n}' },
  postnl: { name: 'PostNL', trackingPage: 'https://jouw.postnl.nl/track-and-trace/{n}' },
  bpost: { name: 'bpost', trackingPage: 'https://track.bpost.cloud/btr/web/#/search?itemCode={n}' },
  mondial_relay: {
    name: 'Mondial Relay',
    trackingPage: 'https://www.mondialrelay.fr/suivi-de-colis/?NumeroExpedition={n}',
  },
  colis_prive: {
    name: 'Colis Privé',
    trackingPage: 'https://www.colisprive.com/moncolis/pages/detailColis.aspx?numColis={n}',
  },
  poste_italiane: {
    name: 'Poste Italiane',
    trackingPage: 'https://www.poste.it/cerca/index.html#/risultati-spedizioni/{n}',
  },
  correos: {
    name: 'Correos',
    trackingPage: 'https://www.correos.es/es/es/herramientas/localizador/envios/detalle?tracking-number={n}',
  },
  inpost: { name: 'InPost', trackingPage: 'https://inpost.pl/sledzenie-przesylek?number={n}' },
}
