/**
 * The schemas' own English messages (api/schemas/*.ts, temporal/steps/*.ts, lib/emailDocument.ts, lib/brand.ts, db/domains.ts)
 * in French and German, by their English. A key's `{name}` matches what the schema put there (`{n}` a
 * number) and the translation repeats it; `{subject}` in a translation is the field as that language names
 * it (fr.ts/de.ts `subject`), since the English label a schema wrote (`Name is required`) is no word in
 * French. An English message that has no subject ("must be in the future") gets one in front of its
 * translation, as withSubject gives the English one. test/unit/fieldSentences.test.ts finds every literal
 * message in those sources and fails when one has no translation here.
 */
export const OWN_MESSAGES: Record<string, { fr: string; de: string }> = {
  // Sentences many schemas write with their field's name in front.
  '{label} is required': { fr: '{subject} est obligatoire', de: '{subject} ist erforderlich' },
  '{label} are required': { fr: '{subject} est obligatoire', de: '{subject} ist erforderlich' },
  '{label} must be a string': { fr: '{subject} doit être du texte', de: '{subject} muss Text sein' },
  '{label} must be a single string': { fr: '{subject} doit être un seul texte', de: '{subject} muss ein einzelner Text sein' },
  '{label} must be at most {n} characters': { fr: '{subject} doit contenir au plus {n} caractères', de: '{subject} darf höchstens {n} Zeichen lang sein' },
  '{label} must be at least {n} characters': { fr: '{subject} doit contenir au moins {n} caractères', de: '{subject} muss mindestens {n} Zeichen lang sein' },
  '{label} must be at least {n}': { fr: '{subject} doit valoir au moins {n}', de: '{subject} muss mindestens {n} sein' },
  '{label} must be at most {n}': { fr: '{subject} doit valoir au plus {n}', de: '{subject} darf höchstens {n} sein' },
  '{label} must be {a} to {b}': { fr: '{subject} doit être compris entre {a} et {b}', de: '{subject} muss zwischen {a} und {b} liegen' },
  '{label} must be a whole number': { fr: '{subject} doit être un nombre entier', de: '{subject} muss eine ganze Zahl sein' },
  '{label} must be a positive number': { fr: '{subject} doit être un nombre positif', de: '{subject} muss eine positive Zahl sein' },
  '{label} must be a boolean': { fr: '{subject} doit être oui ou non (true ou false)', de: '{subject} muss ja oder nein (true oder false) sein' },
  '{label} must be one of {values}': { fr: '{subject} doit être l’une des valeurs {values}', de: '{subject} muss einer der Werte {values} sein' },
  '{label} must be html or blocks': { fr: '{subject} doit être html ou blocks', de: '{subject} muss html oder blocks sein' },
  '{label} must be a comma-separated list of {values}': {
    fr: '{subject} doit être une liste séparée par des virgules de {values}',
    de: '{subject} muss eine kommagetrennte Liste aus {values} sein',
  },
  '{label} must not contain line breaks': { fr: '{subject} ne doit pas contenir de saut de ligne', de: '{subject} darf keine Zeilenumbrüche enthalten' },
  '{label} must not contain line breaks or path separators': {
    fr: '{subject} ne doit contenir ni saut de ligne ni séparateur de chemin',
    de: '{subject} darf weder Zeilenumbrüche noch Pfadtrennzeichen enthalten',
  },
  '{label} must be a valid email address': { fr: '{subject} doit être une adresse e-mail valide', de: '{subject} muss eine gültige E-Mail-Adresse sein' },
  '{label} must be an array of email addresses': {
    fr: '{subject} doit être une liste d’adresses e-mail',
    de: '{subject} muss eine Liste von E-Mail-Adressen sein',
  },
  '{label} is too long': { fr: '{subject} est trop long', de: '{subject} ist zu lang' },
  '{label} is not a valid template: {problem}': {
    fr: '{subject} n’est pas un modèle valide : {problem}',
    de: '{subject} ist keine gültige Vorlage: {problem}',
  },
  '{label} must be an http or https URL': { fr: '{subject} doit être une URL http ou https', de: '{subject} muss eine http- oder https-URL sein' },
  '{label} must be base64': { fr: '{subject} doit être en base64', de: '{subject} muss Base64 sein' },
  '{label} must be a MIME type': { fr: '{subject} doit être un type MIME', de: '{subject} muss ein MIME-Typ sein' },
  '{label} must be a JSON array of column mappings': {
    fr: '{subject} doit être un tableau JSON de correspondances de colonnes',
    de: '{subject} muss ein JSON-Array von Spaltenzuordnungen sein',
  },
  '{label} must be a filter tree as JSON': { fr: '{subject} doit être un arbre de filtres en JSON', de: '{subject} muss ein Filterbaum als JSON sein' },
  '{label} must be a contact id (cnt_…)': { fr: '{subject} doit être un identifiant de contact (cnt_…)', de: '{subject} muss eine Kontakt-ID sein (cnt_…)' },
  '{label} must be at most {n} days ahead': {
    fr: '{subject} doit être au plus {n} jours dans le futur',
    de: '{subject} darf höchstens {n} Tage in der Zukunft liegen',
  },
  '{label} must be at most {n} KB of JSON': { fr: '{subject} doit faire au plus {n} Ko de JSON', de: '{subject} darf höchstens {n} KB JSON umfassen' },
  '{label} may nest at most {n} levels deep': {
    fr: '{subject} peut avoir au plus {n} niveaux d’imbrication',
    de: '{subject} darf höchstens {n} Ebenen tief verschachtelt sein',
  },
  '{label} is HH:MM (24-hour)': { fr: '{subject} est au format HH:MM (24 h)', de: '{subject} hat das Format HH:MM (24 Stunden)' },
  '{label} is required when {other} is {value}': {
    fr: '{subject} est obligatoire quand {other} vaut {value}',
    de: '{subject} ist erforderlich, wenn {other} {value} ist',
  },
  '{label} is required when no template is given': {
    fr: '{subject} est obligatoire quand aucun modèle n’est indiqué',
    de: '{subject} ist erforderlich, wenn keine Vorlage angegeben ist',
  },
  '{label} is required for a blocks template': {
    fr: '{subject} est obligatoire pour un modèle en blocs',
    de: '{subject} ist für eine Blöcke-Vorlage erforderlich',
  },
  '{label} must not be empty (null generates it from the body)': {
    fr: '{subject} ne doit pas être vide (null le génère à partir du corps)',
    de: '{subject} darf nicht leer sein (null erzeugt ihn aus dem Inhalt)',
  },
  '{label} must be lowercase letters and digits in words joined by "-"': {
    fr: '{subject} doit être fait de lettres minuscules et de chiffres, en mots reliés par « - »',
    de: '{subject} muss aus Kleinbuchstaben und Ziffern bestehen, in Wörtern, die mit „-“ verbunden sind',
  },
  '{label} may list at most {n} addresses per call': {
    fr: '{subject} peut contenir au plus {n} adresses par appel',
    de: '{subject} darf höchstens {n} Adressen pro Aufruf enthalten',
  },
  '{label} must list at least one address': { fr: '{subject} doit contenir au moins une adresse', de: '{subject} muss mindestens eine Adresse enthalten' },
  'eventName (or triggerConfig.eventName) is required': {
    fr: '{subject} (ou triggerConfig.eventName) est obligatoire',
    de: '{subject} (oder triggerConfig.eventName) ist erforderlich',
  },

  // Sentences without a subject: the field's goes in front (withSubject).
  'must be a 24-hour HH:MM time such as 21:00': {
    fr: 'doit être une heure au format 24 h HH:MM, comme 21:00',
    de: 'muss eine Uhrzeit im 24-Stunden-Format HH:MM sein, etwa 21:00',
  },
  'must be an IANA time zone name such as Europe/Paris': {
    fr: 'doit être un nom de fuseau horaire IANA, comme Europe/Paris',
    de: 'muss ein IANA-Zeitzonenname sein, etwa Europe/Paris',
  },
  'must be in the future': { fr: 'doit être dans le futur', de: 'muss in der Zukunft liegen' },
  'must not contain control characters': { fr: 'ne doit pas contenir de caractères de contrôle', de: 'darf keine Steuerzeichen enthalten' },
  'must be an http or https URL': { fr: 'doit être une URL http ou https', de: 'muss eine http- oder https-URL sein' },

  // Sentences of their own.
  'not a token from one of our emails': { fr: 'ce n’est pas un jeton issu de l’un de nos e-mails', de: 'kein Token aus einer unserer E-Mails' },
  'not a token from an invitation email': { fr: 'ce n’est pas un jeton issu d’un e-mail d’invitation', de: 'kein Token aus einer Einladungs-E-Mail' },
  'Give emails and/or contacts': { fr: 'Indiquez emails et/ou contacts', de: 'Geben Sie emails und/oder contacts an' },
  'Give a name or a locale to change': { fr: 'Indiquez un nom ou une langue à modifier', de: 'Geben Sie einen Namen oder eine Sprache zum Ändern an' },
  'Enter your current password': { fr: 'Saisissez votre mot de passe actuel', de: 'Geben Sie Ihr aktuelles Passwort ein' },
  'Nothing to update': { fr: 'Rien à mettre à jour', de: 'Nichts zu aktualisieren' },
  'not a valid template: {problem}': { fr: 'ce n’est pas un modèle valide : {problem}', de: 'keine gültige Vorlage: {problem}' },
  'an A/B test has 2 to 5 subjects': { fr: 'un test A/B a de 2 à 5 objets', de: 'ein A/B-Test hat 2 bis 5 Betreffzeilen' },
  'body is compiled from the document for a blocks campaign: send document, not body': {
    fr: 'le corps est compilé à partir du document pour une campagne en blocs : envoyez document, pas body',
    de: 'der Inhalt wird bei einer Blöcke-Kampagne aus dem Dokument erzeugt: senden Sie document, nicht body',
  },
  'Body is compiled from the document for a blocks template: send document, not body': {
    fr: 'Le corps est compilé à partir du document pour un modèle en blocs : envoyez document, pas body',
    de: 'Der Inhalt wird bei einer Blöcke-Vorlage aus dem Dokument erzeugt: senden Sie document, nicht body',
  },
  'give either contactIds or matching, not both': {
    fr: 'indiquez contactIds ou matching, pas les deux',
    de: 'geben Sie entweder contactIds oder matching an, nicht beides',
  },
  'a column is id, email, subscribed, createdAt, updatedAt or data.<key>[.<key>…]': {
    fr: 'une colonne est id, email, subscribed, createdAt, updatedAt ou data.<clé>[.<clé>…]',
    de: 'eine Spalte ist id, email, subscribed, createdAt, updatedAt oder data.<Schlüssel>[.<Schlüssel>…]',
  },
  'this key is reserved (the email field is always part of the form)': {
    fr: 'cette clé est réservée (le champ e-mail fait toujours partie du formulaire)',
    de: 'dieser Schlüssel ist reserviert (das E-Mail-Feld gehört immer zum Formular)',
  },
  'a field key may not start with "_" (the form uses those names itself)': {
    fr: 'une clé de champ ne peut pas commencer par « _ » (le formulaire utilise ces noms lui-même)',
    de: 'ein Feldschlüssel darf nicht mit „_“ beginnen (das Formular verwendet diese Namen selbst)',
  },
  'a field key may not contain "." or control characters': {
    fr: 'une clé de champ ne peut contenir ni « . » ni caractères de contrôle',
    de: 'ein Feldschlüssel darf weder „.“ noch Steuerzeichen enthalten',
  },
  'a select needs its options': { fr: 'une liste déroulante a besoin de ses options', de: 'eine Auswahlliste braucht ihre Optionen' },
  'only a select has options': { fr: 'seule une liste déroulante a des options', de: 'nur eine Auswahlliste hat Optionen' },
  'options must be different': { fr: 'les options doivent être différentes', de: 'die Optionen müssen sich unterscheiden' },
  'the key "{key}" is used by another field': {
    fr: 'la clé « {key} » est utilisée par un autre champ',
    de: 'der Schlüssel „{key}“ wird von einem anderen Feld verwendet',
  },
  'each topic once': { fr: 'chaque thème une seule fois', de: 'jedes Thema nur einmal' },
  'an http or https URL': { fr: 'une URL http ou https', de: 'eine http- oder https-URL' },
  'header names must be HTTP tokens (no CR or LF)': {
    fr: 'les noms d’en-tête doivent être des jetons HTTP (sans CR ni LF)',
    de: 'Header-Namen müssen HTTP-Tokens sein (ohne CR oder LF)',
  },
  'header values must not contain CR or LF': {
    fr: 'les valeurs d’en-tête ne doivent contenir ni CR ni LF',
    de: 'Header-Werte dürfen weder CR noch LF enthalten',
  },
  'header {name} cannot be set: the service sets it, or it would add recipients or change the sender (use to, from, reply or subject)': {
    fr: 'l’en-tête {name} ne peut pas être défini : le service le définit, ou il ajouterait des destinataires ou changerait l’expéditeur (utilisez to, from, reply ou subject)',
    de: 'der Header {name} kann nicht gesetzt werden: der Dienst setzt ihn selbst, oder er würde Empfänger hinzufügen oder den Absender ändern (verwenden Sie to, from, reply oder subject)',
  },
  'at most {n} attachments': { fr: 'au plus {n} pièces jointes', de: 'höchstens {n} Anhänge' },
  'attachments exceed 10 MB in total': { fr: 'les pièces jointes dépassent 10 Mo au total', de: 'die Anhänge überschreiten insgesamt 10 MB' },
  'at most {n} emails per batch': { fr: 'au plus {n} e-mails par lot', de: 'höchstens {n} E-Mails pro Stapel' },
  'at most {n} topics per request': { fr: 'au plus {n} thèmes par requête', de: 'höchstens {n} Themen pro Anfrage' },
  'At most {n} language variants': { fr: 'Au plus {n} variantes de langue', de: 'Höchstens {n} Sprachvarianten' },
  'Variants are keyed by locale, like en, fr or pt-BR': {
    fr: 'Les variantes sont indexées par langue, comme en, fr ou pt-BR',
    de: 'Varianten werden nach Sprache benannt, etwa en, fr oder pt-BR',
  },
  'A slug must not look like a topic id': {
    fr: 'Un identifiant ne doit pas ressembler à l’ID d’un thème',
    de: 'Ein Kürzel darf nicht wie eine Themen-ID aussehen',
  },
  'Send either code or recoveryCode': { fr: 'Envoyez soit code, soit recoveryCode', de: 'Senden Sie entweder code oder recoveryCode' },
  'a pattern is an exact event name, a family like "email.*", or "*"': {
    fr: 'un motif est un nom d’événement exact, une famille comme « email.* », ou « * »',
    de: 'ein Muster ist ein exakter Ereignisname, eine Familie wie „email.*“ oder „*“',
  },
  'eventName and triggerConfig.eventName differ': {
    fr: 'eventName et triggerConfig.eventName diffèrent',
    de: 'eventName und triggerConfig.eventName unterscheiden sich',
  },
  'unknown step type {type}': { fr: 'type d’étape inconnu {type}', de: 'unbekannter Schritttyp {type}' },
  '`from` must not be after `to`': { fr: '`from` ne doit pas être postérieur à `to`', de: '`from` darf nicht nach `to` liegen' },
  'Colours are written like #1a2b3c': { fr: 'Les couleurs s’écrivent comme #1a2b3c', de: 'Farben werden wie #1a2b3c geschrieben' },
  'Links start with https://, mailto:, tel: or a {{ variable }}': {
    fr: 'Les liens commencent par https://, mailto:, tel: ou une {{ variable }}',
    de: 'Links beginnen mit https://, mailto:, tel: oder einer {{ variable }}',
  },
  'Columns hold 2 or 3 columns': { fr: 'Un bloc de colonnes contient 2 ou 3 colonnes', de: 'Ein Spaltenblock enthält 2 oder 3 Spalten' },
  'A font stack holds names, spaces, commas and quotes only': {
    fr: 'Une liste de polices ne contient que des noms, des espaces, des virgules et des guillemets',
    de: 'Eine Schriftliste enthält nur Namen, Leerzeichen, Kommas und Anführungszeichen',
  },
  'A document holds at most {n} blocks': { fr: 'Un document contient au plus {n} blocs', de: 'Ein Dokument enthält höchstens {n} Blöcke' },
  'The logo is an https:// URL': { fr: 'Le logo est une URL https://', de: 'Das Logo ist eine https://-URL' },
  'Enter a domain like example.com': { fr: 'Saisissez un domaine comme example.com', de: 'Geben Sie eine Domain wie example.com ein' },
  'Enter a domain like example.com — an IP address is not a domain name': {
    fr: 'Saisissez un domaine comme example.com — une adresse IP n’est pas un nom de domaine',
    de: 'Geben Sie eine Domain wie example.com ein – eine IP-Adresse ist kein Domainname',
  },
  'Enter a domain like example.com — without https://, a path, a port or an @': {
    fr: 'Saisissez un domaine comme example.com — sans https://, chemin, port ni @',
    de: 'Geben Sie eine Domain wie example.com ein – ohne https://, Pfad, Port oder @',
  },
  'Enter a domain like example.com — it needs a dot': {
    fr: 'Saisissez un domaine comme example.com — il lui faut un point',
    de: 'Geben Sie eine Domain wie example.com ein – sie braucht einen Punkt',
  },
  'Domain name is longer than {n} characters': { fr: 'Le nom de domaine dépasse {n} caractères', de: 'Der Domainname ist länger als {n} Zeichen' },
  'Domain name may only contain letters, digits and inner hyphens between dots': {
    fr: 'Le nom de domaine ne peut contenir que des lettres, des chiffres et des tirets intérieurs entre les points',
    de: 'Der Domainname darf nur Buchstaben, Ziffern und innere Bindestriche zwischen Punkten enthalten',
  },
  'Domain name cannot end with a numeric label': {
    fr: 'Le nom de domaine ne peut pas se terminer par un libellé numérique',
    de: 'Der Domainname darf nicht mit einem rein numerischen Label enden',
  },
  // A workflow step's config (temporal/steps/*.ts).
  'a split has 2 to 10 branches': { fr: 'une répartition a de 2 à 10 branches', de: 'eine Aufteilung hat 2 bis 10 Zweige' },
  'branch names are 1-50 of a-z, 0-9, _ and -': {
    fr: 'un nom de branche compte 1 à 50 caractères parmi a-z, 0-9, _ et -',
    de: 'Zweignamen bestehen aus 1–50 Zeichen aus a-z, 0-9, _ und -',
  },
  '{label} must be positive': { fr: '{subject} doit être un nombre positif', de: '{subject} muss positiv sein' },
  'branch {name} is named twice': { fr: 'la branche {name} est nommée deux fois', de: 'der Zweig {name} ist doppelt benannt' },
  '{label} must be at most {n} days': { fr: '{subject} doit être d’au plus {n} jours', de: '{subject} darf höchstens {n} Tage betragen' },
  '{label} must be within {n} days': { fr: '{subject} doit rester dans les {n} jours', de: '{subject} muss innerhalb von {n} Tagen liegen' },
  'give data or subscribed': { fr: 'indiquez data ou subscribed', de: 'geben Sie data oder subscribed an' },
  '{label} must be a 24-hour HH:MM time such as {time}': {
    fr: '{subject} doit être une heure au format 24 h HH:MM, comme {time}',
    de: '{subject} muss eine Uhrzeit im 24-Stunden-Format HH:MM sein, etwa {time}',
  },
  'each day at most once': { fr: 'chaque jour au plus une fois', de: 'jeder Tag höchstens einmal' },
  '{label} must be a contact data field such as data.renewalDate': {
    fr: '{subject} doit être un champ de données du contact, comme data.renewalDate',
    de: '{subject} muss ein Datenfeld des Kontakts sein, etwa data.renewalDate',
  },
  'header name must be an HTTP token': { fr: 'le nom d’en-tête doit être un jeton HTTP', de: 'der Header-Name muss ein HTTP-Token sein' },
  'header {name} is set by the client': { fr: 'l’en-tête {name} est défini par le client', de: 'der Header {name} wird vom Client gesetzt' },
  '{label} must be at most {n} characters without line breaks': {
    fr: '{subject} doit contenir au plus {n} caractères, sans saut de ligne',
    de: '{subject} darf höchstens {n} Zeichen lang sein, ohne Zeilenumbrüche',
  },
  '{label} must be http or https': { fr: '{subject} doit être en http ou https', de: '{subject} muss http oder https sein' },
  'a GET request has no body': { fr: 'une requête GET n’a pas de corps', de: 'eine GET-Anfrage hat keinen Inhalt' },
  // The router's own refusal (api/router.ts).
  'the body nests more than {n} levels deep': { fr: 'le corps imbrique plus de {n} niveaux', de: 'der Inhalt ist mehr als {n} Ebenen tief verschachtelt' },
};
