import type { SentenceLanguage } from './fieldSentences/types';
import { pluralForm } from './pluralForm';

/**
 * The sentences saying why a domain's DNS record is not found (db/domains.ts `recordProblem`), in each
 * language the API speaks: a missing sentence fails tsc. `at` is the record's name; values are quoted
 * as DNS holds them, never translated.
 */
export interface RecordProblemWords {
  /** Nothing of the record's type is published at its name. */
  nothingAt(type: 'TXT' | 'MX', at: string): string;
  /** The name's MX points elsewhere: `published` lists the exchanges found, `host` is ours. */
  mxElsewhere(at: string, published: string, host: string): string;
  ownershipMissing(at: string): string;
  noSpf(at: string): string;
  /** More than one SPF record (`count` of them) on one name. */
  manySpf(at: string, count: number, spf: string): string;
  /** The one SPF record (`published`, as found) lacks our mechanism. */
  spfWithout(at: string, published: string, spf: string): string;
  noDmarc(at: string): string;
  dkimMissing(at: string): string;
}

export const RECORD_PROBLEM_WORDS: Record<SentenceLanguage, RecordProblemWords> = {
  en: {
    nothingAt: (type, at) => `No ${type} record was found at ${at}: publish the value shown (DNS changes can take a while to be seen).`,
    mxElsewhere: (at, published, host) => `The MX record at ${at} points to ${published}, not to ${host}: mail sent there does not reach this service.`,
    ownershipMissing: (at) => `The TXT records at ${at} do not hold this project's verification value: publish it exactly as shown.`,
    noSpf: (at) => `There is no SPF record (v=spf1 …) at ${at}: publish the value shown.`,
    manySpf: (at, count, spf) =>
      `${at} has ${count} SPF ${pluralForm('en', count) === 'one' ? 'record' : 'records'}, which receivers treat as an error: merge them into one that carries ${spf}.`,
    spfWithout: (at, published, spf) =>
      `The SPF record at ${at} ("${published}") does not carry ${spf}: add it before the final all term, as in the value shown.`,
    noDmarc: (at) => `The TXT records at ${at} hold no DMARC policy (v=DMARC1): publish the value shown.`,
    dkimMissing: (at) =>
      `The TXT record at ${at} does not hold this domain's DKIM key: publish the value shown, whole (long values are split into several strings by some DNS providers, which is fine).`,
  },
  fr: {
    nothingAt: (type, at) =>
      `Aucun enregistrement ${type} n’a été trouvé sur ${at} : publiez la valeur indiquée (une modification DNS peut mettre un moment à être visible).`,
    mxElsewhere: (at, published, host) =>
      `L’enregistrement MX de ${at} pointe vers ${published}, et non vers ${host} : le courrier envoyé à cette adresse n’arrive pas à ce service.`,
    ownershipMissing: (at) =>
      `Les enregistrements TXT de ${at} ne contiennent pas la valeur de vérification de ce projet : publiez-la exactement telle qu’indiquée.`,
    noSpf: (at) => `Il n’y a aucun enregistrement SPF (v=spf1 …) sur ${at} : publiez la valeur indiquée.`,
    manySpf: (at, count, spf) =>
      `${at} a ${count} ${pluralForm('fr', count) === 'one' ? 'enregistrement SPF' : 'enregistrements SPF'}, ce que les destinataires traitent comme une erreur : fusionnez-les en un seul qui contient ${spf}.`,
    spfWithout: (at, published, spf) =>
      `L’enregistrement SPF de ${at} (« ${published} ») ne contient pas ${spf} : ajoutez-le avant le terme all final, comme dans la valeur indiquée.`,
    noDmarc: (at) => `Les enregistrements TXT de ${at} ne contiennent aucune politique DMARC (v=DMARC1) : publiez la valeur indiquée.`,
    dkimMissing: (at) =>
      `L’enregistrement TXT de ${at} ne contient pas la clé DKIM de ce domaine : publiez la valeur indiquée, en entier (certains fournisseurs DNS découpent les valeurs longues en plusieurs chaînes, ce qui ne pose pas de problème).`,
  },
  de: {
    nothingAt: (type, at) =>
      `Unter ${at} wurde kein ${type}-Eintrag gefunden: Veröffentlichen Sie den angezeigten Wert (DNS-Änderungen können eine Weile brauchen, bis sie sichtbar sind).`,
    mxElsewhere: (at, published, host) =>
      `Der MX-Eintrag unter ${at} zeigt auf ${published}, nicht auf ${host}: Dorthin gesendete E-Mails erreichen diesen Dienst nicht.`,
    ownershipMissing: (at) =>
      `Die TXT-Einträge unter ${at} enthalten nicht den Verifizierungswert dieses Projekts: Veröffentlichen Sie ihn genau wie angezeigt.`,
    noSpf: (at) => `Unter ${at} gibt es keinen SPF-Eintrag (v=spf1 …): Veröffentlichen Sie den angezeigten Wert.`,
    manySpf: (at, count, spf) =>
      `${at} hat ${count} ${pluralForm('de', count) === 'one' ? 'SPF-Eintrag' : 'SPF-Einträge'}, was Empfänger als Fehler werten: Führen Sie sie zu einem zusammen, der ${spf} enthält.`,
    spfWithout: (at, published, spf) =>
      `Der SPF-Eintrag unter ${at} („${published}“) enthält ${spf} nicht: Fügen Sie es vor dem abschließenden all-Term ein, wie im angezeigten Wert.`,
    noDmarc: (at) => `Die TXT-Einträge unter ${at} enthalten keine DMARC-Richtlinie (v=DMARC1): Veröffentlichen Sie den angezeigten Wert.`,
    dkimMissing: (at) =>
      `Der TXT-Eintrag unter ${at} enthält nicht den DKIM-Schlüssel dieser Domain: Veröffentlichen Sie den angezeigten Wert vollständig (manche DNS-Anbieter teilen lange Werte in mehrere Zeichenketten auf, das ist in Ordnung).`,
  },
};
