/** The home currency of each variant, unless the service's currency list marks another. */
export const HOME_CURRENCY = { cz: 'CZK', sk: 'EUR' } as const;
