"""A file's one line of error (ddpcore's, in English) in the page's language.

ddpcore says why a file was left out in English, for the command line and logs; the page says it in French too.
Each message's English shape is matched here and given its French wording, the values it carries kept; a message
of no known shape (a parser's own words after "invalid JSON") keeps those words.

>>> in_language("empty file", "fr"), in_language("not a readable gzip file (truncated)", "fr")
('fichier vide', 'fichier gzip illisible (tronqué)')
>>> in_language("invalid JSON at line 3: Expecting value", "fr")
'JSON invalide à la ligne 3 : Expecting value'
"""

from __future__ import annotations

import re

FRENCH = (
    (r"empty file", "fichier vide"),
    (r"not a readable gzip file \(truncated\)", "fichier gzip illisible (tronqué)"),
    (r"not a readable gzip file \(data after the last member\)", "fichier gzip illisible (données après la fin)"),
    (r"not a readable gzip file \((.*)\)", r"fichier gzip illisible (\1)"),
    (r"(\d+) MiB is over the (\d+) MiB limit", r"\1 Mio dépasse la limite de \2 Mio"),
    (r"over the (\d+) MiB limit once decompressed", r"plus que la limite de \1 Mio une fois décompressé"),
    (r"over the (\d+) MiB limit", r"plus que la limite de \1 Mio"),
    (r"JSON nested deeper than (\d+) levels: not a trace", r"JSON imbriqué sur plus de \1 niveaux : pas une trace"),
    (r"not UTF-8 text \(neither JSON nor JSONL\)", "pas du texte UTF-8 (ni JSON ni JSONL)"),
    (r"JSON nested too deep at line (\d+): not a trace", r"JSON trop imbriqué à la ligne \1 : pas une trace"),
    (r"invalid JSON at line (\d+): expected (.*), found (.*)", r"JSON invalide à la ligne \1 : \2 attendu, \3 trouvé"),
    (r"invalid JSON at line (\d+): a number too long to read", r"JSON invalide à la ligne \1 : nombre trop long"),
    (
        r"invalid JSON at line (\d+): an object key must be a string",
        r"JSON invalide à la ligne \1 : une clé d'objet doit être une chaîne",
    ),
    (r"invalid JSON at line (\d+): (.*)", r"JSON invalide à la ligne \1 : \2"),
    (
        r"invalid JSON: extra data after the summary \(line (\d+)\)",
        r"JSON invalide : données après le résumé (ligne \1)",
    ),
    (
        r"invalid JSON: extra data after the profiler trace \(line (\d+)\)",
        r"JSON invalide : données après la trace du profileur (ligne \1)",
    ),
    (
        r"JSON that is not a trace \(neither a PyTorch profiler trace nor ddpcore JSONL\)",
        "JSON qui n'est pas une trace (ni une trace du profileur PyTorch ni du JSONL ddpcore)",
    ),
    (
        r"JSON without a 'traceEvents' list: not a PyTorch profiler trace",
        "JSON sans liste 'traceEvents' : pas une trace du profileur PyTorch",
    ),
    (
        r"no distributedInfo\.rank: record with torch\.distributed initialised",
        "pas de distributedInfo.rank : enregistrez avec torch.distributed initialisé",
    ),
    (
        r"event (\d+) \((.*)\): 'dur' is (.*) µs: a step cannot last less than 0",
        r"événement \1 (\2) : 'dur' vaut \3 µs : un pas ne peut durer moins que 0",
    ),
    (
        r"no host ProfilerStep#N events kept: events with a negative 'dur' were left out \(first: event (\d+), "
        r"(.*), (.*) µs\)",
        r"aucun événement hôte ProfilerStep#N gardé : des événements au 'dur' négatif ont été écartés (premier : "
        r"événement \1, \2, \3 µs)",
    ),
    (
        r"no host ProfilerStep#N events: profile with a schedule and call prof\.step\(\) each step",
        "aucun ProfilerStep#N côté hôte : profilez avec un schedule et appelez prof.step() à chaque pas",
    ),
    (r"event (\d+): '(\w+)' not a finite number within (.*)", r"événement \1 : '\2' n'est pas un nombre fini dans \3"),
    (r"line (\d+): '(\w+)' not a finite number within (.*)", r"ligne \1 : '\2' n'est pas un nombre fini dans \3"),
    (
        r"line (\d+): '(\w+)' must be a whole number from (.*) to (.*)",
        r"ligne \1 : '\2' doit être un entier de \3 à \4",
    ),
    (r"a ProfilerStep number of (.*) digits: over (.*)", r"un numéro de ProfilerStep de \1 chiffres : plus de \2"),
    (
        r"line (\d+): expected an object with rank, step, phase, start, end",
        r"ligne \1 : objet attendu avec rank, step, phase, start, end",
    ),
    (r"line (\d+): 'phase' must be one of (.*)", r"ligne \1 : 'phase' doit être l'une de \2"),
    (
        r"line (\d+): 'start' and 'end' must be finite seconds with end >= start",
        r"ligne \1 : 'start' et 'end' doivent être des secondes finies avec end >= start",
    ),
    (
        r"line (\d+): rank (\d+) in a file of rank (\d+) \(one file per rank\)",
        r"ligne \1 : rang \2 dans un fichier du rang \3 (un fichier par rang)",
    ),
    (r"line (\d+): (.*) \(invalid JSON\)", r"ligne \1 : \2 (JSON invalide)"),
    (r"(.*) must be a whole number from (.*) to (.*)", r"\1 doit être un entier de \2 à \3"),
    (r"no events: an empty JSONL trace", "aucun événement : trace JSONL vide"),
    (r"summary (.*): not a finite number", r"résumé, \1 : pas un nombre fini"),
    (r"summary (.*): (.*) out of range", r"résumé, \1 : \2 hors limites"),
    (r"summary (.*): a whole number from 0 to (.*)", r"résumé, \1 : un entier de 0 à \2"),
    (r"summary (.*): expected (\d+) values", r"résumé, \1 : \2 valeurs attendues"),
    (r"summary (.*): '(\w+)' must be true or false", r"résumé, \1 : '\2' doit valoir true ou false"),
    (
        r"summary (.*): the GPU columns must be all numbers or all null",
        r"résumé, \1 : les colonnes GPU doivent être toutes des nombres ou toutes null",
    ),
    (r"summary (.*): 'period_ms' must be positive", r"résumé, \1 : 'period_ms' doit être positif"),
    (r"a ddpcore summary with a step twice", "un résumé ddpcore avec un pas en double"),
    (
        r"a ddpcore summary of version (.*): this ddpcore reads versions (.*)",
        r"un résumé ddpcore de version \1 : ce ddpcore lit les versions \2",
    ),
    (
        r"a ddpcore summary whose columns are not those of its version",
        "un résumé ddpcore dont les colonnes ne sont pas celles de sa version",
    ),
    (r"a ddpcore summary without steps", "un résumé ddpcore sans pas"),
    (r"a second file for rank (\d+) \(first: (.*)\)", r"un second fichier pour le rang \1 (le premier : \2)"),
    (r"could not be read \((.*)\)", r"illisible (\1)"),
    (
        r"need traces of at least two ranks to compare them",
        "il faut les traces d'au moins deux rangs pour les comparer",
    ),
    (
        r"another run than the (\d+) files kept \((.*)\): its gradient releases drift apart from theirs, where the "
        r"ranks of one run are released together",
        r"un autre run que les \1 fichiers gardés (\2) : ses libérations de gradients dérivent par rapport aux leurs, "
        r"alors que les rangs d'un même run sont libérés ensemble",
    ),
    (
        r"these files are from (\d+) runs, none larger than the others: (.*)\. Give the files of one run",
        r"ces fichiers viennent de \1 runs, aucun plus grand que les autres : \2. Donnez les fichiers d'un seul run",
    ),
    (
        r"the ranks' traces share no step number: were they recorded in the same run\?",
        "les traces des rangs n'ont aucun numéro de pas en commun : viennent-elles du même run ?",
    ),
)
"""(English shape, French wording) of every line ddpcore gives for a file it leaves out, most specific first."""

_COMPILED = tuple((re.compile(english + r"\Z", re.DOTALL), french) for english, french in FRENCH)


def in_language(message: str, lang: str) -> str:
    """The message in `lang`: English as ddpcore words it, French from FRENCH (its own words where no shape fits)."""
    if lang != "fr":
        return message
    for pattern, french in _COMPILED:
        match = pattern.match(message)
        if match:
            return match.expand(french)
    return message
