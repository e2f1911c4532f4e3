"""One date format in the back office, whatever the staff member's language: "6. 12. 2026 14:34" (Prague time,
core.middleware.BackOfficeTimeZoneMiddleware), and Czech numbers ("1 736,00")."""

DATE_FORMAT = "j. n. Y"
DATETIME_FORMAT = "j. n. Y H:i"
SHORT_DATE_FORMAT = "j. n. Y"
SHORT_DATETIME_FORMAT = "j. n. Y H:i"
TIME_FORMAT = "H:i"
DATE_INPUT_FORMATS = ["%Y-%m-%d", "%d.%m.%Y", "%d. %m. %Y", "%d.%m.%y"]
DATETIME_INPUT_FORMATS = ["%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M", "%d.%m.%Y %H:%M", "%d. %m. %Y %H:%M", "%Y-%m-%d"]
DECIMAL_SEPARATOR = ","
THOUSAND_SEPARATOR = "\xa0"
NUMBER_GROUPING = 3
FIRST_DAY_OF_WEEK = 1
